"use client";

import { ShieldAlert, ShieldCheck, ShieldX } from "lucide-react";
import { memo, useState } from "react";
import { useFormatter, useTranslations } from "use-intl";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import { cx } from "@/lib/client/cx";
import type { TimelineEntry } from "@/lib/client/run-view";
import type { ApprovalDecision } from "@/lib/protocol/run-events";
import { withoutBidiControls } from "@/lib/text/bidi-controls";
import { useConversationFiles } from "../files/conversation-files-context";

type ApprovalEntry = Extract<TimelineEntry, { kind: "approval" }>;

/** The MCP annotations the card names; others the server sent are left out. */
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

const DECISIONS: { decision: ApprovalDecision; testId: string; tone: string }[] = [
  { decision: "once", testId: "approval-once", tone: "bg-primary text-primary-foreground hover:bg-primary/90" },
  { decision: "always", testId: "approval-always", tone: "border border-border hover:bg-muted" },
  {
    decision: "deny",
    testId: "approval-deny",
    tone: "border border-red-200 text-red-700 hover:bg-red-50 dark:border-red-500/30 dark:text-red-300 dark:hover:bg-red-500/10",
  },
];

function prettyArgs(args: unknown): string {
  try {
    return JSON.stringify(args, null, 2) ?? "";
  } catch {
    return String(args);
  }
}

/**
 * A tool call that waits for the user's approval (docs/security.md, "Tools that act need the user's
 * consent"): the tool, its server, the arguments and what the server says the tool does; approve once, always
 * in this chat, or deny. Once decided (or timed out) it says how it ended; the tool card beside it shows the
 * call.
 */
export const ApprovalCard = memo(function ApprovalCard({
  entry,
  runEnded,
}: {
  entry: ApprovalEntry;
  runEnded: boolean;
}) {
  const t = useTranslations("tools.approval");
  const format = useFormatter();
  const errorText = useErrorText();
  const { conversationId } = useConversationFiles();
  const [sending, setSending] = useState<ApprovalDecision | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const { request, resolution } = entry;
  // Outside a conversation's page (a shared view) nothing can be decided.
  const waiting = resolution === null && !runEnded && conversationId !== null;
  const state = resolution?.decision ?? (runEnded ? "undecided" : "waiting");
  const hints = HINTS.filter((hint) => typeof request.annotations[hint] === "boolean");
  const approved = resolution?.decision === "once" || resolution?.decision === "always";
  const Icon = waiting ? ShieldAlert : approved ? ShieldCheck : ShieldX;

  const decide = async (decision: ApprovalDecision) => {
    if (conversationId === null) return;
    setSending(decision);
    setFailure(null);
    try {
      await api.decideApproval(conversationId, request.approvalId, decision);
    } catch (error) {
      setFailure(errorText(error));
    } finally {
      setSending(null);
    }
  };

  return (
    <section
      data-testid="approval-card"
      data-state={state}
      data-tool={request.tool}
      aria-label={t("title", { tool: request.toolName })}
      className={cx(
        "rounded-xl border bg-card p-3.5 text-sm",
        waiting ? "border-amber-300 dark:border-amber-500/40" : "border-border",
      )}
    >
      <header className="flex items-start gap-2">
        <Icon
          aria-hidden
          className={cx(
            "mt-0.5 size-4 shrink-0",
            waiting ? "text-amber-600" : approved ? "text-emerald-600" : "text-red-600",
          )}
        />
        <div className="min-w-0">
          <p className="font-medium">{t("title", { tool: withoutBidiControls(request.toolName) })}</p>
          <p className="text-xs text-muted-foreground">
            {t("server", { server: request.server, name: withoutBidiControls(request.tool) })}
          </p>
        </div>
      </header>
      {waiting ? <p className="mt-2 text-xs text-muted-foreground">{t("explain")}</p> : null}
      <p className="mt-2 text-xs font-medium text-muted-foreground">{t("arguments")}</p>
      <pre
        data-testid="approval-args"
        className="mt-1 max-h-48 overflow-auto rounded-lg bg-muted/60 p-2 font-mono text-xs whitespace-pre-wrap break-words"
      >
        {withoutBidiControls(prettyArgs(request.args))}
      </pre>
      <p className="mt-2 text-xs font-medium text-muted-foreground">{t("annotations")}</p>
      {hints.length > 0 ? (
        <ul data-testid="approval-annotations" className="mt-1 flex flex-wrap gap-1.5">
          {hints.map((hint) => (
            <li
              key={hint}
              className={cx(
                "rounded-full px-2 py-0.5 text-xs",
                request.annotations[hint] ? "bg-muted" : "bg-muted/40 text-muted-foreground line-through",
              )}
            >
              {t(`hint.${hint}`)}
            </li>
          ))}
        </ul>
      ) : (
        <p data-testid="approval-annotations" className="mt-1 text-xs text-muted-foreground">
          {t("noAnnotations")}
        </p>
      )}
      {waiting ? (
        <>
          <div className="mt-3 flex flex-wrap gap-2">
            {DECISIONS.map(({ decision, testId, tone }) => (
              <button
                key={decision}
                type="button"
                data-testid={testId}
                disabled={sending !== null}
                onClick={() => void decide(decision)}
                className={cx(
                  "rounded-lg px-3 py-1.5 text-sm font-medium disabled:opacity-60 focus-visible:outline-2 focus-visible:outline-ring",
                  tone,
                )}
              >
                {t(decision)}
              </button>
            ))}
          </div>
          <p className="mt-2 text-xs text-muted-foreground">
            {t("waitsUntil", { time: format.dateTime(request.expiresAt, { timeStyle: "short" }) })}
          </p>
        </>
      ) : (
        <p data-testid="approval-outcome" className="mt-2 text-xs text-muted-foreground">
          {resolution ? t(`decided.${resolution.decision}`) : t("undecided")}
        </p>
      )}
      {failure ? (
        <p role="alert" className="mt-2 text-xs text-red-700 dark:text-red-300">
          {failure}
        </p>
      ) : null}
    </section>
  );
});
