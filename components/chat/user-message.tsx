"use client";

import { Clock, Pencil } from "lucide-react";
import { memo, useState } from "react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";
import { fileUrl } from "@/lib/client/api";
import { cx } from "@/lib/client/cx";
import { FileChip } from "./attachments/file-chip";
import { hasTextPreview, useFileFacts } from "./attachments/file-facts";
import type { StoredVersion } from "./chat-items";
import { EditMessageForm } from "./edit-message-form";
import { useConversationFiles } from "./files/conversation-files-context";
import { FilePreviewDialog, type PreviewedFile } from "./files/file-preview";
import type { SentAttachment } from "./live-turn";
import type { ThreadActions } from "./message-list";
import { VersionSwitcher } from "./version-switcher";

/**
 * The user's message, as typed (no Markdown), in a bubble on the right, with the files sent with
 * it. An interrupt (sent while the agent works) is marked pending until the agent takes it.
 */
export const UserMessage = memo(function UserMessage({
  content,
  attachments = [],
  interruptPending = false,
  stored = null,
  actions = null,
}: {
  content: string;
  attachments?: SentAttachment[];
  interruptPending?: boolean;
  /** A stored question: it can be edited (a new version) and shows its versions. */
  stored?: StoredVersion | null;
  actions?: ThreadActions | null;
}) {
  const t = useTranslations("answer");
  const tv = useTranslations("versions");
  const fileFacts = useFileFacts();
  const { conversationId } = useConversationFiles();
  const tf = useTranslations("files");
  const [editing, setEditing] = useState(false);
  const [previewed, setPreviewed] = useState<PreviewedFile | null>(null);
  if (editing && stored && actions && !actions.blocked) {
    return (
      <EditMessageForm
        initial={content}
        onSubmit={(text) => actions.edit(stored.id, text)}
        onCancel={() => setEditing(false)}
      />
    );
  }
  return (
    <div
      data-testid="message-user"
      data-interrupt-pending={interruptPending || undefined}
      className="flex flex-col items-end gap-1.5"
    >
      {attachments.length > 0 ? (
        <ul aria-label={t("attachedFiles")} className="flex max-w-[85%] flex-wrap justify-end gap-1.5 sm:max-w-[75%]">
          {attachments.map((file) => (
            <li key={file.id} className="min-w-0">
              <FileChip
                data-testid="message-attachment"
                filename={file.filename}
                mime={file.mime}
                facts={fileFacts(file)}
              >
                {conversationId && hasTextPreview(file.mime) ? (
                  <button
                    type="button"
                    data-testid="message-attachment-preview"
                    onClick={() => setPreviewed(file)}
                    className="absolute inset-0 rounded-xl focus-visible:outline-2 focus-visible:outline-ring"
                  >
                    <span className="sr-only">{tf("preview", { name: file.filename })}</span>
                  </button>
                ) : conversationId ? (
                  <a
                    href={fileUrl(conversationId, file.id)}
                    download={file.filename}
                    className="absolute inset-0 rounded-xl focus-visible:outline-2 focus-visible:outline-ring"
                  >
                    <span className="sr-only">{t("download", { name: file.filename })}</span>
                  </a>
                ) : null}
              </FileChip>
            </li>
          ))}
        </ul>
      ) : null}
      {conversationId ? (
        <FilePreviewDialog conversationId={conversationId} file={previewed} onClose={() => setPreviewed(null)} />
      ) : null}
      <div
        className={cx(
          "max-w-[85%] rounded-3xl bg-bubble px-4 py-2.5 text-[0.9375rem] leading-relaxed break-words whitespace-pre-wrap sm:max-w-[75%]",
          interruptPending && "opacity-70",
        )}
      >
        {content}
      </div>
      {stored && actions ? (
        <div className="flex items-center gap-1">
          <VersionSwitcher stored={stored} actions={actions} />
          <IconButton
            size="sm"
            label={t("edit")}
            title={actions.blocked ? tv("blocked") : undefined}
            aria-disabled={actions.blocked}
            data-testid="edit-message"
            className="opacity-70 hover:opacity-100 focus-visible:opacity-100"
            onClick={() => {
              if (!actions.blocked) setEditing(true);
            }}
          >
            <Pencil aria-hidden className="size-3.5" />
          </IconButton>
        </div>
      ) : null}
      {interruptPending ? (
        <span data-testid="interrupt-pending-label" className="flex items-center gap-1 text-xs text-muted-foreground">
          <Clock aria-hidden className="size-3" />
          {t("interruptPending")}
        </span>
      ) : null}
    </div>
  );
});
