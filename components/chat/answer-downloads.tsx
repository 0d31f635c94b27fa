"use client";

import { FileDown, FileText, Printer } from "lucide-react";
import { useTranslations } from "use-intl";
import { answerExportUrl } from "@/lib/client/api";
import { cx } from "@/lib/client/cx";
import { useConversationFiles } from "./files/conversation-files-context";

const LINK = cx(
  "inline-flex size-7 shrink-0 items-center justify-center rounded-lg text-muted-foreground transition-colors",
  "hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring",
);

/**
 * In a stored answer's footer: the answer as a Markdown or Word download, with its references
 * (the server names the file), and Print, which prints this answer alone (Save as PDF): the
 * `@media print` rules in app/globals.css hide the rest of the page.
 */
export function AnswerDownloads({ messageId }: { messageId: string }) {
  const t = useTranslations("answer");
  const { conversationId } = useConversationFiles();
  if (!conversationId) return null;
  const links = [
    { format: "md", label: t("downloadMarkdown"), Icon: FileText },
    { format: "docx", label: t("downloadWord"), Icon: FileDown },
  ] as const;
  return (
    <>
      {links.map(({ format, label, Icon }) => (
        <a
          key={format}
          href={answerExportUrl(conversationId, messageId, format)}
          download
          aria-label={label}
          title={label}
          data-testid={`answer-download-${format}`}
          className={LINK}
        >
          <Icon aria-hidden className="size-3.5" />
        </a>
      ))}
      <button
        type="button"
        aria-label={t("print")}
        title={t("print")}
        data-testid="answer-print"
        className={LINK}
        onClick={(event) => printAnswer(event.currentTarget)}
      >
        <Printer aria-hidden className="size-3.5" />
      </button>
    </>
  );
}

/** Prints the thread item holding `from` alone: marked for the print rules until printing ends. */
function printAnswer(from: HTMLElement) {
  const item = from.closest<HTMLElement>("[data-item-key]");
  const root = document.documentElement;
  if (item) {
    item.dataset.printTarget = "true";
    root.dataset.printOne = "true";
    const done = () => {
      delete item.dataset.printTarget;
      delete root.dataset.printOne;
      window.removeEventListener("afterprint", done);
    };
    window.addEventListener("afterprint", done);
  }
  window.print();
}
