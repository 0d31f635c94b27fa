"use client";

import { Eye, X } from "lucide-react";
import { useState } from "react";
import { useTranslations } from "use-intl";
import { useModels } from "@/components/models/use-models";
import { IconButton } from "@/components/ui/icon-button";
import { useConversationFiles } from "../files/conversation-files-context";
import { FilePreviewDialog, type PreviewedFile } from "../files/file-preview";
import { FileChip } from "./file-chip";
import { hasTextPreview, isImage, useFileFacts } from "./file-facts";
import { FileUsageLine } from "./file-usage";
import type { PendingAttachment } from "./use-attachments";

/**
 * The composer's files: name, pages and size, upload progress, the server's refusal, a remove button;
 * on an image, before sending, whether the chosen model can see it and who answers if not.
 */
export function AttachmentChips({
  items,
  onRemove,
  model,
}: {
  items: PendingAttachment[];
  onRemove: (key: string) => void;
  model: string | null;
}) {
  const t = useTranslations("attachments");
  const tf = useTranslations("files");
  const fileFacts = useFileFacts();
  const { conversationId } = useConversationFiles();
  const [previewed, setPreviewed] = useState<PreviewedFile | null>(null);
  const { find, visionModel } = useModels();
  if (items.length === 0) return null;
  const info = find(model);
  const blind = model && info && !info.abilities.vision;
  const visionWarning = blind
    ? visionModel
      ? t("visionRouted", { model, vision: visionModel })
      : t("noVision", { model })
    : null;
  return (
    <>
      <ul aria-label={t("listLabel")} className="flex flex-wrap gap-2 px-2 pt-2">
        {items.map((item) => (
          <li key={item.key} className="flex max-w-full min-w-0 flex-col items-start gap-1 sm:max-w-72">
            <FileChip
              data-testid="attachment-chip"
              data-state={item.state}
              filename={item.filename}
              mime={item.mime}
              tone={item.state === "error" ? "error" : "normal"}
              facts={
                item.state === "uploading"
                  ? t("uploading", { progress: Math.round(item.progress * 100) / 100 })
                  : item.state === "error"
                    ? t("notAttached")
                    : fileFacts({
                        mime: item.mime,
                        pageCount: item.uploaded?.pageCount,
                        size: item.uploaded?.size ?? item.size,
                      })
              }
            >
              {conversationId && item.uploaded && hasTextPreview(item.uploaded.mime) ? (
                <IconButton
                  size="sm"
                  data-testid="attachment-preview"
                  label={tf("preview", { name: item.filename })}
                  onClick={() => setPreviewed(item.uploaded)}
                >
                  <Eye aria-hidden className="size-3.5" />
                </IconButton>
              ) : null}
              <IconButton size="sm" label={t("remove", { name: item.filename })} onClick={() => onRemove(item.key)}>
                <X aria-hidden className="size-3.5" />
              </IconButton>
              {item.state === "uploading" ? (
                <span
                  role="progressbar"
                  aria-label={t("uploadingLabel", { name: item.filename })}
                  aria-valuemin={0}
                  aria-valuemax={100}
                  aria-valuenow={Math.round(item.progress * 100)}
                  className="absolute inset-x-0 bottom-0 h-0.5 bg-muted"
                >
                  <span
                    className="block h-full bg-foreground/60 transition-[width] duration-200"
                    style={{ width: `${Math.max(4, item.progress * 100)}%` }}
                  />
                </span>
              ) : null}
            </FileChip>
            {visionWarning && item.state !== "error" && isImage(item.mime) ? (
              <p
                data-testid="attachment-vision-warning"
                data-routed={visionModel ? "true" : "false"}
                className="px-1 text-xs text-amber-700 dark:text-amber-400"
              >
                {visionWarning}
              </p>
            ) : null}
            {item.error ? (
              <p data-testid="attachment-error" role="alert" className="px-1 text-xs text-red-700 dark:text-red-300">
                {item.error}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
      <FileUsageLine conversationId={conversationId} stored={items.filter((item) => item.state === "ready").length} />
      {conversationId ? (
        <FilePreviewDialog conversationId={conversationId} file={previewed} onClose={() => setPreviewed(null)} />
      ) : null}
    </>
  );
}
