import { FileCode, FileImage, FileJson, FileSpreadsheet, FileText, FileType, type LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { cx } from "@/lib/client/cx";
import { displayFilename } from "@/lib/text/bidi-controls";
import { type FileKind, fileKind } from "./file-facts";

const LOOKS: Record<FileKind, { icon: LucideIcon; tone: string }> = {
  pdf: { icon: FileText, tone: "bg-red-500/10 text-red-600 dark:text-red-400" },
  image: { icon: FileImage, tone: "bg-sky-500/10 text-sky-600 dark:text-sky-400" },
  word: { icon: FileType, tone: "bg-blue-500/10 text-blue-700 dark:text-blue-300" },
  csv: { icon: FileSpreadsheet, tone: "bg-emerald-500/10 text-emerald-700 dark:text-emerald-400" },
  json: { icon: FileJson, tone: "bg-amber-500/10 text-amber-700 dark:text-amber-400" },
  html: { icon: FileCode, tone: "bg-violet-500/10 text-violet-700 dark:text-violet-300" },
  markdown: { icon: FileText, tone: "bg-muted text-muted-foreground" },
  text: { icon: FileText, tone: "bg-muted text-muted-foreground" },
};

/** A file as a small card: type icon, name (no bidi controls), one line of facts, whatever goes at its end. */
export function FileChip({
  filename,
  mime,
  facts,
  tone = "normal",
  children,
  className,
  ...rest
}: {
  filename: string;
  mime: string;
  facts: ReactNode;
  tone?: "normal" | "error";
  children?: ReactNode;
  className?: string;
  "data-testid"?: string;
  "data-state"?: string;
}) {
  const kind = fileKind(mime);
  const { icon: Icon, tone: kindTone } = LOOKS[kind];
  const name = displayFilename(filename);
  return (
    <div
      {...rest}
      data-kind={kind}
      className={cx(
        "relative flex max-w-full min-w-0 items-center gap-2.5 overflow-hidden rounded-xl border bg-card py-1.5 pr-2 pl-1.5 text-left",
        tone === "error" ? "border-red-300 dark:border-red-500/40" : "border-border",
        className,
      )}
    >
      <span
        className={cx(
          "grid size-8 shrink-0 place-items-center rounded-lg",
          tone === "error" ? "bg-red-50 text-red-600 dark:bg-red-500/10 dark:text-red-300" : kindTone,
        )}
      >
        <Icon aria-hidden className="size-4" />
      </span>
      <span className="flex min-w-0 flex-col">
        <span className="truncate text-[0.8125rem] leading-5 font-medium" title={name}>
          {name}
        </span>
        <span className="truncate text-xs leading-4 text-muted-foreground">{facts}</span>
      </span>
      {children}
    </div>
  );
}
