"use client";

import { Download, Loader2, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";
import { useErrorText } from "@/components/ui/use-error-text";
import { fileText, fileUrl, isAbort } from "@/lib/client/api";
import { displayFilename } from "@/lib/text/bidi-controls";

export interface PreviewedFile {
  id: string;
  filename: string;
}

type Loaded = { text: string; truncated: boolean; chars: number } | { error: unknown } | null;

/**
 * A text or Word file's text as the model reads it (a CSV as its table), in a native modal dialog
 * (focus trap and Escape for free), with the file's download. Plain text only: nothing in it is markup.
 */
export function FilePreviewDialog({
  conversationId,
  file,
  onClose,
}: {
  conversationId: string;
  file: PreviewedFile | null;
  onClose: () => void;
}) {
  const t = useTranslations("files");
  const errorText = useErrorText();
  const dialog = useRef<HTMLDialogElement>(null);
  const [loaded, setLoaded] = useState<Loaded>(null);

  useEffect(() => {
    if (!file) return;
    if (!dialog.current?.open) dialog.current?.showModal();
    const controller = new AbortController();
    setLoaded(null);
    fileText(conversationId, file.id, controller.signal).then(setLoaded, (error: unknown) => {
      if (!isAbort(error)) setLoaded({ error });
    });
    return () => controller.abort();
  }, [conversationId, file]);

  const name = file ? displayFilename(file.filename) : "";
  return (
    <dialog
      ref={dialog}
      onClose={onClose}
      aria-labelledby="file-preview-title"
      data-testid="file-preview"
      className="m-auto max-h-[min(40rem,calc(100dvh-2rem))] w-[min(48rem,calc(100vw-1.5rem))] flex-col rounded-2xl border border-border bg-background p-0 text-foreground shadow-2xl backdrop:bg-black/50 open:flex"
    >
      {file ? (
        <>
          <div className="flex items-center gap-2 border-b border-border px-4 py-3">
            <h2 id="file-preview-title" className="min-w-0 flex-1 truncate text-sm font-semibold" title={name}>
              {t("previewTitle", { name })}
            </h2>
            <a
              href={fileUrl(conversationId, file.id)}
              download={name}
              className="inline-flex items-center gap-1 rounded-md px-2 py-1 text-xs text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
            >
              <Download aria-hidden className="size-3.5" />
              {t("downloadShort")}
            </a>
            <IconButton size="sm" label={t("closePreview")} onClick={() => dialog.current?.close()}>
              <X aria-hidden className="size-4" />
            </IconButton>
          </div>
          <div className="min-h-0 flex-1 overflow-auto px-4 py-3">
            {loaded === null ? (
              <p className="flex items-center gap-2 text-sm text-muted-foreground">
                <Loader2 aria-hidden className="size-4 animate-spin" />
                {t("previewLoading")}
              </p>
            ) : "error" in loaded ? (
              <p role="alert" className="text-sm text-red-700 dark:text-red-300">
                {errorText(loaded.error)}
              </p>
            ) : (
              <>
                <pre
                  data-testid="file-preview-text"
                  className="font-mono text-xs leading-relaxed break-words whitespace-pre-wrap"
                >
                  {loaded.text}
                </pre>
                {loaded.truncated ? (
                  <p className="mt-3 text-xs text-muted-foreground">
                    {t("previewTruncated", { shown: loaded.text.length, total: loaded.chars })}
                  </p>
                ) : null}
              </>
            )}
          </div>
        </>
      ) : null}
    </dialog>
  );
}
