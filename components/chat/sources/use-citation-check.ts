"use client";

import { useCallback, useState } from "react";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import type { CitationReport } from "@/lib/protocol/citations";
import { useConversationFiles } from "../files/conversation-files-context";

/**
 * "Check citations" for one stored answer (docs/research.md, "Checking citations"): the verifier's
 * report, once it is in, replaces the answer's own (its run's `citations` event or the stored
 * report) on its chips and counts at once, without a reload. `onCheck` resolves with an error to
 * show or null, as CitationHeader expects; it is absent for an answer not stored yet.
 */
export function useCitationCheck(
  messageId: string | null,
  report: CitationReport | null,
): { report: CitationReport | null; onCheck?: () => Promise<string | null> } {
  const { conversationId } = useConversationFiles();
  const errorText = useErrorText();
  const [checked, setChecked] = useState<{ messageId: string; report: CitationReport } | null>(null);
  const check = useCallback(async () => {
    if (!conversationId || !messageId) return null;
    try {
      setChecked({ messageId, report: await api.checkCitations(conversationId, messageId) });
      return null;
    } catch (error) {
      return errorText(error);
    }
  }, [conversationId, messageId, errorText]);
  const shown = checked && checked.messageId === messageId ? checked.report : report;
  return { report: shown, ...(conversationId && messageId ? { onCheck: check } : {}) };
}
