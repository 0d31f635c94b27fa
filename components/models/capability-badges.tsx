import { Brain, Eye, Wrench } from "lucide-react";
import { useTranslations } from "use-intl";
import type { ModelInfo } from "@/lib/client/types";

const BADGES = [
  {
    key: "tool_call",
    label: "tools",
    Icon: Wrench,
    tone: "text-sky-700 bg-sky-50 dark:text-sky-300 dark:bg-sky-400/10",
  },
  {
    key: "thinking",
    label: "thinking",
    Icon: Brain,
    tone: "text-violet-700 bg-violet-50 dark:text-violet-300 dark:bg-violet-400/10",
  },
  {
    key: "vision",
    label: "vision",
    Icon: Eye,
    tone: "text-emerald-700 bg-emerald-50 dark:text-emerald-300 dark:bg-emerald-400/10",
  },
] as const;

/** Small badges (`data-capability` keeps the English name for tests and styles) for what a model can do: tools, thinking, vision. */
export function CapabilityBadges({ model }: { model: ModelInfo }) {
  const t = useTranslations("models");
  const shown = BADGES.filter((badge) => model.abilities[badge.key]);
  if (shown.length === 0) return null;
  return (
    <span className="flex flex-wrap gap-1">
      {shown.map(({ key, label, Icon, tone }) => (
        <span
          key={key}
          data-capability={label}
          className={`inline-flex items-center gap-1 rounded-full px-1.5 py-0.5 text-[0.6875rem] leading-none font-medium ${tone}`}
        >
          <Icon aria-hidden className="size-3" />
          {t(`capability.${key}`)}
        </span>
      ))}
    </span>
  );
}
