"use client";

import { Download, Files, Globe } from "lucide-react";
import { useTranslations } from "use-intl";
import { MENU_BUTTON, MENU_PANEL, Menu } from "@/components/ui/menu";
import { fileUrl } from "@/lib/client/api";
import { cx } from "@/lib/client/cx";
import type { ConversationFile } from "@/lib/client/types";
import { FileChip } from "../attachments/file-chip";
import { useFileFacts } from "../attachments/file-facts";
import { shortUrl } from "../run/tool-meta";

/**
 * The conversation's files in the header: what the user attached and what the agent fetched,
 * each a download link. The model sees all of them (as `attachment:<id>`) in every turn.
 */
export function FilesMenu({ conversationId, files }: { conversationId: string; files: ConversationFile[] }) {
  const t = useTranslations("files");
  const fileFacts = useFileFacts();

  if (files.length === 0) return null;
  return (
    <Menu
      className="relative"
      button={(props) => (
        <button
          {...props}
          data-testid="files-button"
          aria-label={t("button", { count: files.length })}
          className={MENU_BUTTON}
        >
          <Files aria-hidden className="size-4" />
          <span className="tabular-nums">{files.length}</span>
        </button>
      )}
    >
      {(panel) => (
        <div
          {...panel}
          data-testid="files-panel"
          className={cx(
            MENU_PANEL,
            "absolute top-full right-0 z-30 mt-1.5 max-h-[min(28rem,70dvh)] w-[min(22rem,calc(100vw-1.5rem))] overflow-y-auto p-2",
          )}
        >
          <p className="px-1 pb-2 text-xs text-muted-foreground">{t("intro")}</p>
          <ul className="flex flex-col gap-1.5">
            {files.map((file) => (
              <li key={file.id}>
                <FileChip
                  data-testid="conversation-file"
                  filename={file.filename}
                  mime={file.mime}
                  className="w-full"
                  facts={
                    <>
                      {file.origin === "fetch" ? (
                        <span className="inline-flex items-center gap-1" title={file.sourceUrl ?? undefined}>
                          <Globe aria-hidden className="size-3" />
                          {file.sourceUrl ? shortUrl(file.sourceUrl) : t("fetched")} ·{" "}
                        </span>
                      ) : null}
                      {fileFacts(file)}
                    </>
                  }
                >
                  <a
                    href={fileUrl(conversationId, file.id)}
                    download={file.filename}
                    data-testid="file-download"
                    aria-label={t("download", { name: file.filename })}
                    className={cx(
                      "ml-auto grid size-7 shrink-0 place-items-center rounded-lg text-muted-foreground",
                      "hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring",
                    )}
                  >
                    <Download aria-hidden className="size-3.5" />
                  </a>
                </FileChip>
              </li>
            ))}
          </ul>
        </div>
      )}
    </Menu>
  );
}
