import type { ReactNode } from "react";
import { useFormatter, useTranslations } from "use-intl";
import { modelDisplayName } from "@/components/models/model-name";
import type { Usage } from "@/lib/client/types";
import { AnswerDownloads } from "./answer-downloads";
import { CopyButton } from "./copy-button";
import { RegenerateButton } from "./regenerate-button";
import { useFormatElapsed } from "./run/use-elapsed";

const MODES = new Set(["native", "json", "dag", "research"]);

/**
 * Under a finished answer: its versions, copy, download (Markdown, Word) and print, regenerate, then model, mode and iterations (only when a tool ran: a plain
 * answer has no loop to speak of), tokens, tokens per second and time taken.
 */
export function MessageFooter({
  content,
  model,
  mode,
  iterations,
  iterationLimit = false,
  toolsRan,
  usage,
  elapsedMs,
  versions = null,
  messageId = null,
  onRegenerate,
  blocked = false,
}: {
  content: string;
  model: string | null;
  mode: string | null;
  iterations: number | null;
  /** The tool loop stopped at MAX_ITERATIONS: said with the iterations. */
  iterationLimit?: boolean;
  toolsRan: boolean;
  usage: Usage | null;
  elapsedMs: number | null;
  /** The answer's version switcher. */
  versions?: ReactNode;
  /** The stored answer's id: it downloads as a document. */
  messageId?: string | null;
  onRegenerate?: () => Promise<string | null>;
  /** A run works in the conversation: regenerate waits. */
  blocked?: boolean;
}) {
  const t = useTranslations("footer");
  const format = useFormatter();
  const formatElapsed = useFormatElapsed();
  const tokens = (count: number) =>
    count < 1000 ? String(count) : format.number(count, { notation: "compact", maximumFractionDigits: 1 });
  const generationMs = usage?.generationMs ?? 0;
  const facts = [
    model === null ? null : modelDisplayName(model),
    toolsRan && mode && mode !== "plain" ? (MODES.has(mode) ? t(`mode.${mode}`) : t("otherMode", { mode })) : null,
    toolsRan && iterations ? t(iterationLimit ? "iterationLimit" : "iterations", { count: iterations }) : null,
    usage && usage.totalTokens > 0
      ? t("tokens", { input: tokens(usage.inputTokens), output: tokens(usage.outputTokens) })
      : null,
    usage && usage.outputTokens > 0 && generationMs > 0
      ? t("tokensPerSecond", {
          rate: format.number(usage.outputTokens / (generationMs / 1000), { maximumFractionDigits: 1 }),
        })
      : null,
    elapsedMs !== null ? formatElapsed(elapsedMs) : null,
  ].filter((fact): fact is string => Boolean(fact));
  return (
    <div
      data-testid="message-footer"
      className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-foreground"
    >
      {versions}
      {content ? <CopyButton text={content} /> : null}
      {content && messageId ? <AnswerDownloads messageId={messageId} /> : null}
      {onRegenerate ? <RegenerateButton onRegenerate={onRegenerate} blocked={blocked} /> : null}
      {facts.map((fact, index) => (
        <span key={fact} className="flex items-center gap-3">
          {index > 0 ? <span aria-hidden className="size-0.5 rounded-full bg-muted-foreground/60" /> : null}
          {fact}
        </span>
      ))}
    </div>
  );
}
