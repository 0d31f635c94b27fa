"use client";

import { CircleCheck, CircleMinus, Download, FolderPlus, Loader2, Upload } from "lucide-react";
import Link from "next/link";
import { useId, useRef, useState } from "react";
import { useSWRConfig } from "swr";
import { useTranslations } from "use-intl";
import { Section } from "@/components/shell/page-frame";
import { useConversations } from "@/components/sidebar/conversations-context";
import { BUTTON_SECONDARY, InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import { exportAllUrl, importConversations } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import { cx } from "@/lib/client/cx";
import type { ImportReport } from "@/lib/client/types";

/**
 * "Your data" on the settings page: download every conversation as one ZIP (JSON to import, Markdown
 * to read; files optional), and import such a ZIP or one conversation's JSON, then the server's
 * report: what was imported (links to open it), the projects it made (links to a new chat in each)
 * and what was skipped, with the reason.
 */
export function YourDataSettings() {
  const t = useTranslations("export");
  const message = useErrorText();
  const { refresh } = useConversations();
  const { mutate } = useSWRConfig();
  const [withFiles, setWithFiles] = useState(false);
  const [importing, setImporting] = useState(false);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const inputId = useId();

  const startImport = async (file: File) => {
    setImporting(true);
    setReport(null);
    setError(null);
    try {
      setReport(await importConversations(file));
      // The projects it made join the sidebar with their conversations.
      await Promise.all([refresh(), mutate(cacheKeys.projects)]);
    } catch (caught) {
      setError(message(caught));
    } finally {
      setImporting(false);
      if (input.current) input.current.value = "";
    }
  };

  return (
    <Section title={t("section")} description={t("sectionDescription")} testId="settings-your-data">
      <div className="space-y-4 rounded-xl border border-border p-4">
        <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
          <a href={exportAllUrl(withFiles)} download data-testid="export-all" className={BUTTON_SECONDARY}>
            <Download aria-hidden className="size-4" />
            {t("exportAll")}
          </a>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              className="size-4 accent-foreground"
              checked={withFiles}
              onChange={(event) => setWithFiles(event.target.checked)}
              data-testid="export-all-files"
            />
            {t("includeFiles")}
          </label>
        </div>
        <div className="space-y-2 border-t border-border pt-4">
          <div className="flex flex-wrap items-center gap-3">
            <input
              ref={input}
              id={inputId}
              type="file"
              accept=".json,.zip,application/json,application/zip"
              className="peer sr-only"
              disabled={importing}
              data-testid="import-input"
              onChange={(event) => {
                const file = event.target.files?.[0];
                if (file) void startImport(file);
              }}
            />
            <label
              htmlFor={inputId}
              className={cx(
                BUTTON_SECONDARY,
                "cursor-pointer peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-ring",
              )}
            >
              {importing ? (
                <Loader2 aria-hidden className="size-4 animate-spin" />
              ) : (
                <Upload aria-hidden className="size-4" />
              )}
              {importing ? t("importing") : t("import")}
            </label>
            <p className="text-xs text-muted-foreground">{t("importHint")}</p>
          </div>
          {error ? <InlineError data-testid="import-error">{error}</InlineError> : null}
          {report ? <ImportReportView report={report} /> : null}
        </div>
      </div>
    </Section>
  );
}

function ImportReportView({ report }: { report: ImportReport }) {
  const t = useTranslations("export");
  const tp = useTranslations("projects");
  const message = useErrorText();
  // Why, in the UI's language; a refused file's own refusal is worded the same way.
  const why = ({ code, reason, details }: ImportReport["skipped"][number]) => {
    const refusal = details?.refusal;
    return message({ code, message: reason, details: refusal ? { ...details, refusal: message(refusal) } : details });
  };
  return (
    <div role="status" data-testid="import-report" className="space-y-3 text-sm">
      <p className="font-medium">
        {t("reportSummary", { imported: report.imported.length, skipped: report.skipped.length })}
      </p>
      {report.imported.length > 0 ? (
        <ul aria-label={t("importedList")} className="space-y-1">
          {report.imported.map((entry) => (
            <li key={entry.id} data-testid="import-imported" className="flex items-center gap-2">
              <CircleCheck aria-hidden className="size-4 shrink-0 text-emerald-600 dark:text-emerald-400" />
              <Link href={`/c/${entry.id}`} className="min-w-0 truncate underline underline-offset-2 hover:opacity-80">
                {entry.title}
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
      {report.projects.length > 0 ? (
        <>
          <p className="font-medium">{t("reportProjects", { count: report.projects.length })}</p>
          <ul aria-label={t("projectsList")} className="space-y-1">
            {report.projects.map((project) => (
              <li key={project.id} data-testid="import-project" className="flex items-center gap-2">
                <FolderPlus aria-hidden className="size-4 shrink-0 text-emerald-600 dark:text-emerald-400" />
                <Link
                  href={`/?project=${encodeURIComponent(project.id)}`}
                  title={tp("newChatIn", { name: project.name })}
                  className="min-w-0 truncate underline underline-offset-2 hover:opacity-80"
                >
                  {project.name}
                </Link>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {report.skipped.length > 0 ? (
        <ul aria-label={t("skippedList")} className="space-y-1.5">
          {report.skipped.map((entry, index) => (
            <li key={index} data-testid="import-skipped" className="flex items-start gap-2">
              <CircleMinus aria-hidden className="mt-0.5 size-4 shrink-0 text-amber-600 dark:text-amber-400" />
              <span className="min-w-0 break-words">
                {entry.title || entry.entry ? (
                  <span className="font-medium">{entry.title || entry.entry}: </span>
                ) : null}
                <span className="text-muted-foreground">{why(entry)}</span>
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
