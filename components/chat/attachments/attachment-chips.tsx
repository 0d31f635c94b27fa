"use client";

import { X } from "lucide-react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";
import { FileChip } from "./file-chip";
import { useFileFacts } from "./file-facts";
import type { PendingAttachment } from "./use-attachments";

/** The composer's files: name, pages and size, upload progress, the server's refusal, a remove button. */
export function AttachmentChips({ items, onRemove }: { items: PendingAttachment[]; onRemove: (key: string) => void }) {
  const t = useTranslations("attachments");
  const fileFacts = useFileFacts();
  if (items.length === 0) return null;
  return (
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
                  : fileFacts({ pageCount: item.uploaded?.pageCount, size: item.uploaded?.size ?? item.size })
            }
          >
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
          {item.error ? (
            <p data-testid="attachment-error" role="alert" className="px-1 text-xs text-red-700 dark:text-red-300">
              {item.error}
            </p>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
