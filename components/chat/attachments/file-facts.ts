import { formatBytes } from "@/lib/client/format";

/** "12 pages · 1.2 MB": what a chip says about a file under its name. */
export function fileFacts({ pageCount, size }: { pageCount?: number | null; size: number }): string {
  const pages = pageCount ? `${pageCount} ${pageCount === 1 ? "page" : "pages"}` : null;
  return [pages, formatBytes(size)].filter(Boolean).join(" · ");
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
