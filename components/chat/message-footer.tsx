import { formatElapsed, formatTokens } from "@/lib/client/format";
import type { Usage } from "@/lib/client/types";
import { CopyButton } from "./copy-button";

const MODE_LABELS: Record<string, string> = {
  native: "native tools",
  json: "JSON mode",
  dag: "plan mode",
};

/** Under a finished answer: copy, then model, mode, iterations, tokens and time taken. */
export function MessageFooter({
  content,
  model,
  mode,
  iterations,
  usage,
  elapsedMs,
  fallback = false,
}: {
  content: string;
  model: string | null;
  mode: string | null;
  iterations: number | null;
  usage: Usage | null;
  elapsedMs: number | null;
  /** Synthesis failed and the answer is the tool loop's own. */
  fallback?: boolean;
}) {
  const facts = [
    model,
    mode && mode !== "plain" ? (MODE_LABELS[mode] ?? `${mode} mode`) : null,
    iterations ? `${iterations} ${iterations === 1 ? "iteration" : "iterations"}` : null,
    usage && usage.totalTokens > 0
      ? `${formatTokens(usage.inputTokens)} in · ${formatTokens(usage.outputTokens)} out tokens`
      : null,
    elapsedMs !== null ? formatElapsed(elapsedMs) : null,
    fallback ? "draft answer (writing the final one failed)" : null,
  ].filter((fact): fact is string => Boolean(fact));
  return (
    <div
      data-testid="message-footer"
      className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-foreground"
    >
      {content ? <CopyButton text={content} /> : null}
      {facts.map((fact, index) => (
        <span key={fact} className="flex items-center gap-3">
          {index > 0 ? <span aria-hidden className="size-0.5 rounded-full bg-muted-foreground/60" /> : null}
          {fact}
        </span>
      ))}
    </div>
  );
}
