"use client";

import { ArrowDown } from "lucide-react";
import { useCallback, useEffect } from "react";
import { useTranslations } from "use-intl";
import type { ResearchBrief } from "@/lib/protocol/research";
import { AssistantMessage } from "./assistant-message";
import type { ChatItem } from "./chat-items";
import { onRevealFoundAgain } from "./reveal-found";
import { UnsentMessage } from "./unsent-message";
import { useStickToBottom } from "./use-stick-to-bottom";
import { UserMessage } from "./user-message";

/**
 * What can be done to the stored questions and answers of the branch shown: each makes or shows
 * another version (docs/architecture.md, "Persistence"). Each resolves with an error to show, or null.
 */
export interface ThreadActions {
  /** A run works in the conversation: nothing can be changed until it ends. */
  blocked: boolean;
  edit(questionId: string, text: string): Promise<string | null>;
  regenerate(answerId: string): Promise<string | null>;
  selectVersion(messageId: string, step: -1 | 1): Promise<string | null>;
  /** The version just switched to, and the way the switch went: its switcher takes the focus. */
  focused: { id: string; step: -1 | 1 } | null;
  /** Research mode: researches the brief the answer `parentId` proposed, as the user edited it. */
  startResearch?(parentId: string, brief: ResearchBrief): Promise<string | null>;
  /** "Find support": asks `question` in a short tool-using turn after the answer `answerId`. */
  findSupport?(answerId: string, question: string): Promise<string | null>;
  /** Research mode: resumes the research a restart interrupted, whose report is the answer `answerId`. */
  resumeResearch?(answerId: string): Promise<string | null>;
}

/** What can be done to an unsent follow-up; each resolves with an error message to show, or null. */
export interface UnsentActions {
  /** Nothing runs: it can go out as a turn of its own. */
  canSend: boolean;
  send(id: string, text: string): Promise<string | null>;
  discard(id: string): Promise<string | null>;
}

/** The thread. Follows a streaming answer down unless the user scrolled up to read. */
export function MessageList({
  items,
  actions = null,
  found = null,
  unsentActions,
}: {
  items: ChatItem[];
  actions?: ThreadActions | null;
  /** The key of an item to show and highlight briefly (a search result opened here). */
  found?: string | null;
  unsentActions: UnsentActions;
}) {
  const t = useTranslations("thread");
  const { scrollRef, contentRef, atBottom, scrollToBottom, release } = useStickToBottom();
  const questions = items.filter((item) => item.kind === "user").length;
  // Only the newest answer's outline card can start a research; older ones show what they proposed.
  const latestAnswer = items.findLast((item) => item.kind === "assistant")?.key;

  // A new question always brings the view down to it.
  useEffect(() => {
    if (questions > 0) scrollToBottom();
  }, [questions, scrollToBottom]);

  // After the effect above: a message opened from search is brought into view (and focus) instead,
  // and again each time the same hit is opened while it is shown.
  const revealFound = useCallback(() => {
    if (!found) return;
    const element = contentRef.current?.querySelector<HTMLElement>(`[data-item-key="${CSS.escape(found)}"]`);
    if (!element) return;
    release();
    element.scrollIntoView({ block: "center" });
    element.focus({ preventScroll: true });
    // The highlight plays again: its CSS animation restarts when the attribute comes back after a layout.
    element.removeAttribute("data-found");
    void element.offsetWidth;
    element.setAttribute("data-found", "true");
  }, [found, contentRef, release]);
  useEffect(revealFound, [revealFound]);
  useEffect(() => onRevealFoundAgain(revealFound), [revealFound]);

  return (
    <div className="relative min-h-0 flex-1">
      <section
        ref={scrollRef}
        aria-label={t("messagesLabel")}
        data-testid="message-list"
        className="h-full overflow-y-auto"
      >
        <div ref={contentRef} className="mx-auto flex w-full max-w-3xl flex-col gap-7 px-4 pt-6 pb-10 sm:px-6">
          {items.map((item) => (
            <div
              key={item.key}
              data-item-key={item.key}
              data-found={item.key === found || undefined}
              tabIndex={item.key === found ? -1 : undefined}
              className="rounded-xl outline-none data-found:animate-found-message"
            >
              {item.kind === "user" ? (
                <UserMessage
                  content={item.content}
                  attachments={item.attachments}
                  interruptPending={item.interruptPending}
                  stored={item.stored}
                  actions={actions}
                />
              ) : item.kind === "unsent" ? (
                <UnsentMessage
                  content={item.content}
                  canSend={unsentActions.canSend}
                  onSend={() => unsentActions.send(item.id, item.content)}
                  onDiscard={() => unsentActions.discard(item.id)}
                />
              ) : (
                <AssistantMessage item={item} actions={actions} latest={item.key === latestAnswer} />
              )}
            </div>
          ))}
        </div>
      </section>
      {atBottom ? null : (
        <button
          type="button"
          aria-label={t("scrollToLatest")}
          onClick={() => scrollToBottom("smooth")}
          className="absolute bottom-3 left-1/2 grid size-9 -translate-x-1/2 place-items-center rounded-full border border-border bg-background text-muted-foreground shadow-md transition-colors hover:text-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
        >
          <ArrowDown aria-hidden className="size-4" />
        </button>
      )}
    </div>
  );
}
