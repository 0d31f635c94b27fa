"use client";

import { useTranslations } from "use-intl";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import type { ConversationSummary } from "@/lib/client/types";

/** Asks before a conversation is deleted for good. */
export function DeleteDialog({
  conversation,
  onClose,
  onConfirm,
}: {
  conversation: ConversationSummary | null;
  onClose: () => void;
  /** Resolves with an error message to show, or null when done. */
  onConfirm: (conversation: ConversationSummary) => Promise<string | null>;
}) {
  const t = useTranslations("sidebar");
  return (
    <ConfirmDialog
      open={conversation !== null}
      title={t("deleteTitle")}
      text={
        conversation
          ? t.rich("deleteText", {
              title: conversation.title,
              name: (chunks) => <span className="font-medium text-foreground">{chunks}</span>,
            })
          : null
      }
      cancelLabel={t("cancel")}
      confirmLabel={t("deleteConfirm")}
      testId="delete-dialog"
      confirmTestId="confirm-delete"
      onClose={onClose}
      onConfirm={async () => (conversation ? onConfirm(conversation) : null)}
    />
  );
}
