import { useCallback } from "react";
import { useTranslations } from "use-intl";
import { formatBytes } from "@/lib/client/format";

export type FileFacts = (file: { pageCount?: number | null; size: number }) => string;

/** "12 pages · 1.2 MB": what a chip says about a file under its name, in the page's language. */
export function useFileFacts(): FileFacts {
  const t = useTranslations("files");
  return useCallback(
    ({ pageCount, size }) =>
      [pageCount ? t("pages", { count: pageCount }) : null, formatBytes(size)].filter(Boolean).join(" · "),
    [t],
  );
}

export const isImage = (mime: string) => mime.startsWith("image/");

/**
 * A message for a run already going names its new files itself: the run's system prompt, which
 * lists the conversation's files, was written before they were uploaded.
 */
export function mentionFiles(text: string, files: { id: string; filename: string }[]): string {
  if (files.length === 0) return text;
  return [text, ...files.map((file) => `[Attached ${file.filename}: attachment:${file.id}]`)].join("\n");
}
