"use client";

import { Plus, X } from "lucide-react";
import { useId } from "react";
import { useTranslations } from "use-intl";
import { BUTTON_SECONDARY, INPUT } from "@/components/ui/field";

/** One env variable or header: `saved` when the server keeps a value the browser never sees. */
export interface KeyValueRow {
  id: string;
  key: string;
  value: string;
  saved: boolean;
}

export const newRow = (key = "", saved = false): KeyValueRow => ({ id: crypto.randomUUID(), key, value: "", saved });

/**
 * Names and values of env variables or headers. Values are secrets: a saved one shows empty, and
 * left empty it is kept (sent as `null`).
 */
export function KeyValueRows({
  legend,
  rows,
  onChange,
  keyPlaceholder,
  testId,
}: {
  legend: string;
  rows: KeyValueRow[];
  onChange: (rows: KeyValueRow[]) => void;
  keyPlaceholder: string;
  testId: string;
}) {
  const t = useTranslations("mcp");
  const legendId = useId();
  const update = (id: string, change: Partial<KeyValueRow>) =>
    onChange(rows.map((row) => (row.id === id ? { ...row, ...change } : row)));
  return (
    <fieldset data-testid={testId} aria-labelledby={legendId} className="space-y-2">
      <legend id={legendId} className="text-sm font-medium">
        {legend}
      </legend>
      {rows.map((row, index) => (
        <div key={row.id} className="flex flex-wrap items-center gap-2 sm:flex-nowrap">
          <input
            aria-label={t("rowName", { legend, n: index + 1 })}
            className={`${INPUT} font-mono sm:w-48`}
            value={row.key}
            placeholder={keyPlaceholder}
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => update(row.id, { key: event.target.value })}
          />
          <input
            aria-label={t("rowValue", { legend, n: index + 1 })}
            className={`${INPUT} min-w-0 flex-1 font-mono`}
            type="password"
            value={row.value}
            placeholder={row.saved ? t("savedValue") : t("value")}
            autoComplete="new-password"
            spellCheck={false}
            onChange={(event) => update(row.id, { value: event.target.value })}
          />
          <button
            type="button"
            className="inline-flex size-9 shrink-0 items-center justify-center rounded-lg text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
            aria-label={t("removeRow", { legend, n: index + 1 })}
            onClick={() => onChange(rows.filter((other) => other.id !== row.id))}
          >
            <X aria-hidden className="size-4" />
          </button>
        </div>
      ))}
      <button type="button" className={BUTTON_SECONDARY} onClick={() => onChange([...rows, newRow()])}>
        <Plus aria-hidden className="size-4" />
        {t("addRow", { legend })}
      </button>
    </fieldset>
  );
}

/** The rows as the API takes them: a saved value left empty is `null` (kept); rows without a name are dropped. */
export function rowsToRecord(rows: KeyValueRow[]): Record<string, string | null> {
  return Object.fromEntries(
    rows
      .filter((row) => row.key.trim())
      .map((row) => [row.key.trim(), row.saved && row.value === "" ? null : row.value]),
  );
}
