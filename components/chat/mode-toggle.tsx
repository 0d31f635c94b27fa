import type { LucideIcon } from "lucide-react";
import { cx } from "@/lib/client/cx";

/**
 * A composer switch for a turn mode ("Plan first", "Research"): pressed while the mode is on; on
 * narrow screens only its icon shows.
 */
export function ModeToggle({
  icon: Icon,
  label,
  title,
  testId,
  on,
  onChange,
}: {
  icon: LucideIcon;
  label: string;
  title: string;
  testId: string;
  on: boolean;
  onChange: (on: boolean) => void;
}) {
  return (
    <button
      type="button"
      data-testid={testId}
      aria-pressed={on}
      title={title}
      onClick={() => onChange(!on)}
      className={cx(
        "flex h-9 shrink-0 items-center gap-1.5 rounded-full px-2.5 text-sm transition-colors",
        "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring",
        on
          ? "bg-primary/10 text-primary dark:bg-primary/20"
          : "text-muted-foreground hover:bg-muted hover:text-foreground",
      )}
    >
      <Icon aria-hidden className="size-4.5" />
      <span className="max-[420px]:sr-only">{label}</span>
    </button>
  );
}
