import { CircleAlert, CircleStop, Unplug } from "lucide-react";
import { memo } from "react";
import type { ChatItem } from "./chat-items";
import { Markdown } from "./markdown";
import { MessageFooter } from "./message-footer";

type AssistantItem = Extract<ChatItem, { kind: "assistant" }>;

const STATUS_LABELS = {
  stopped: { text: "Stopped", Icon: CircleStop, tone: "text-muted-foreground bg-muted" },
  error: { text: "Error", Icon: CircleAlert, tone: "text-red-700 bg-red-50 dark:text-red-300 dark:bg-red-500/10" },
  interrupted: {
    text: "Interrupted",
    Icon: Unplug,
    tone: "text-amber-800 bg-amber-50 dark:text-amber-300 dark:bg-amber-500/10",
  },
} as const;

/** One answer: Markdown (streaming or final), a waiting state, its status and error, and the footer. */
export const AssistantMessage = memo(function AssistantMessage({ item }: { item: AssistantItem }) {
  const streaming = item.status === "streaming";
  const label = item.status in STATUS_LABELS ? STATUS_LABELS[item.status as keyof typeof STATUS_LABELS] : null;

  return (
    <article
      data-testid="message-assistant"
      data-status={item.status}
      aria-busy={streaming}
      aria-label="Answer"
      className="group/answer min-w-0"
    >
      {streaming && !item.answering ? (
        <Waiting detached={item.detached} activity={item.activity} />
      ) : item.content ? (
        <Markdown text={item.content} streaming={streaming} />
      ) : null}
      {label ? (
        <div className="mt-2 flex flex-col items-start gap-2">
          <span
            data-testid="message-status"
            className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ${label.tone}`}
          >
            <label.Icon aria-hidden className="size-3.5" />
            {label.text}
          </span>
          {item.error ? (
            <p
              role="alert"
              data-testid="message-error"
              className="w-full rounded-xl border border-red-200 bg-red-50/70 px-3.5 py-2.5 text-sm text-red-800 dark:border-red-500/20 dark:bg-red-500/10 dark:text-red-200"
            >
              {item.error}
            </p>
          ) : null}
        </div>
      ) : null}
      {streaming ? null : (
        <MessageFooter
          content={item.content}
          model={item.model}
          mode={item.mode}
          iterations={item.iterations}
          usage={item.usage}
          elapsedMs={item.elapsedMs}
        />
      )}
    </article>
  );
});

function Waiting({ detached, activity }: { detached: boolean; activity: string | null }) {
  return (
    <div role="status" className="flex items-center gap-2 py-1 text-sm text-muted-foreground">
      <span aria-hidden className="flex gap-1">
        <span className="size-1.5 animate-bounce rounded-full bg-current [animation-delay:-0.3s]" />
        <span className="size-1.5 animate-bounce rounded-full bg-current [animation-delay:-0.15s]" />
        <span className="size-1.5 animate-bounce rounded-full bg-current" />
      </span>
      {detached ? "An answer is being written; it will appear here when it is done." : (activity ?? "Thinking…")}
    </div>
  );
}
