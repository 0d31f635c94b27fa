import { CornerDownRight, Info, ListFilter } from "lucide-react";
import { useFormatter, useTranslations } from "use-intl";
import type { Compaction, Interrupt } from "@/lib/protocol/run-events";

/** A small note inside a run, e.g. "the tool budget is reached". */
export function RunNotice({ text }: { text: string }) {
  return (
    <p data-testid="run-notice" className="flex items-start gap-2 text-xs text-muted-foreground">
      <Info aria-hidden className="mt-px size-3.5 shrink-0" />
      <span>{text}</span>
    </p>
  );
}

/** Which tools a preliminary call chose when there were many. */
export function ToolSelectionNote({ selected, total }: { selected: string[]; total: number }) {
  const t = useTranslations("tools");
  const format = useFormatter();
  return (
    <p data-testid="tool-selection" className="flex items-start gap-2 text-xs text-muted-foreground">
      <ListFilter aria-hidden className="mt-px size-3.5 shrink-0" />
      <span>
        {t("selection", {
          selected: selected.length,
          total,
          hasNames: selected.length > 0 ? "true" : "false",
          names: format.list(selected),
        })}
      </span>
    </p>
  );
}

/** Where the context guard summarised the older part of the history. */
export function CompactDivider({ event }: { event: Compaction }) {
  const t = useTranslations("tools");
  return (
    <div data-testid="compact-divider" className="flex items-center gap-3 py-1 text-xs text-muted-foreground">
      <span aria-hidden className="h-px flex-1 bg-border" />
      <span className="shrink-0">
        {t("compacted", {
          from: event.originalMessages,
          to: event.keptMessages,
          before: Math.round(event.tokensBefore),
          after: Math.round(event.tokensAfter),
        })}
      </span>
      <span aria-hidden className="h-px flex-1 bg-border" />
    </div>
  );
}

/** Interrupts the user sent while the agent worked, at the point where the agent took them. */
export function TakenInterrupts({ interrupts }: { interrupts: Interrupt[] }) {
  const t = useTranslations("tools");
  return (
    <div className="flex flex-col items-end gap-1.5 py-1">
      <span className="flex items-center gap-1 text-xs text-muted-foreground">
        <CornerDownRight aria-hidden className="size-3.5" />
        {t("sentWhileWorking")}
      </span>
      {interrupts.map((interrupt) => (
        <p
          key={interrupt.id}
          data-testid="taken-interrupt"
          className="max-w-[85%] rounded-2xl bg-bubble px-3.5 py-2 text-sm leading-relaxed break-words whitespace-pre-wrap sm:max-w-[75%]"
        >
          {interrupt.text}
        </p>
      ))}
    </div>
  );
}
