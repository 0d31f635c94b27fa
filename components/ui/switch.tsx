import { cx } from "@/lib/client/cx";

/** An on/off switch (`role="switch"`), named by the element `labelledBy` points at, or by `label`. */
export function Switch({
  on,
  onChange,
  disabled = false,
  labelledBy,
  label,
  testId,
  size = "md",
}: {
  on: boolean;
  onChange: (on: boolean) => void;
  disabled?: boolean;
  labelledBy?: string;
  label?: string;
  testId?: string;
  size?: "sm" | "md";
}) {
  return (
    <button
      type="button"
      role="switch"
      data-testid={testId}
      aria-checked={on}
      aria-labelledby={labelledBy}
      aria-label={label}
      disabled={disabled}
      onClick={() => onChange(!on)}
      className={cx(
        "relative shrink-0 rounded-full transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-60",
        size === "md" ? "h-6 w-11" : "h-5 w-9",
        on ? "bg-foreground" : "bg-muted-foreground/40",
      )}
    >
      <span
        aria-hidden
        className={cx(
          "absolute top-0.5 left-0.5 rounded-full bg-background shadow transition-transform motion-reduce:transition-none",
          size === "md" ? "size-5" : "size-4",
          on && (size === "md" ? "translate-x-5" : "translate-x-4"),
        )}
      />
    </button>
  );
}
