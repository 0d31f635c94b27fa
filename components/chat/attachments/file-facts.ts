import { useCallback } from "react";
import { useTranslations } from "use-intl";
import { formatBytes } from "@/lib/client/format";

/** What a file is, for its icon and its label: by its stored type. */
export type FileKind = "pdf" | "image" | "word" | "csv" | "json" | "html" | "markdown" | "text";

export function fileKind(mime: string): FileKind {
  const type = mime.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "application/pdf") return "pdf";
  if (type.startsWith("image/")) return "image";
  if (type === "application/vnd.openxmlformats-officedocument.wordprocessingml.document") return "word";
  if (type === "text/csv") return "csv";
  if (type === "application/json" || type.endsWith("+json")) return "json";
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "text/markdown") return "markdown";
  return "text";
}

/** Text and Word files open a preview of their text; PDFs and images download. */
export const hasTextPreview = (mime: string) => !["pdf", "image"].includes(fileKind(mime));

export type FileFacts = (file: { mime?: string; pageCount?: number | null; size: number }) => string;

/** "12 pages · 1.2 MB", "CSV · 3 KB": what a chip says about a file under its name, in the page's language. */
export function useFileFacts(): FileFacts {
  const t = useTranslations("files");
  return useCallback(
    ({ mime, pageCount, size }) =>
      [
        mime && hasTextPreview(mime) ? t(`kinds.${fileKind(mime)}`) : null,
        pageCount ? t("pages", { count: pageCount }) : null,
        formatBytes(size),
      ]
        .filter(Boolean)
        .join(" · "),
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
