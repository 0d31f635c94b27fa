"use client";

import { type FormEvent, useId, useState } from "react";
import { useTranslations } from "use-intl";
import { BUTTON_PRIMARY, BUTTON_SECONDARY, INPUT, InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import { ApiError, api } from "@/lib/client/api";

const EXAMPLE = `{
  "mcpServers": {
    "files": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv/docs"]
    }
  }
}`;

/** The names an import would overwrite, from its 409. */
const existingOf = (error: unknown): string[] =>
  error instanceof ApiError && error.code === "conflict:mcp_server_exists"
    ? ((error.details as { existing?: string[] } | undefined)?.existing ?? [])
    : [];

/**
 * Pastes a Claude Desktop / Cursor `{"mcpServers": {...}}` config. Nothing is stored unless every
 * server in it is valid; servers that already exist are replaced only after the admin says so.
 */
export function ImportForm({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) {
  const t = useTranslations("mcp");
  const errorText = useErrorText();
  const id = useId();
  const [config, setConfig] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [existing, setExisting] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  const send = async (replace: string[]) => {
    setBusy(true);
    try {
      await api.importMcpServers({ config, replace });
      onDone();
    } catch (caught) {
      setExisting(existingOf(caught));
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send([]);
  };

  return (
    <form
      data-testid="mcp-import-form"
      aria-label={t("importTitle")}
      onSubmit={submit}
      className="space-y-3 rounded-xl border border-border bg-card p-4"
    >
      <label htmlFor={id} className="text-sm font-medium">
        {t("importLabel")}
      </label>
      <textarea
        id={id}
        data-testid="mcp-import-text"
        className={`${INPUT} min-h-40 font-mono text-xs`}
        value={config}
        placeholder={EXAMPLE}
        spellCheck={false}
        onChange={(event) => {
          setConfig(event.target.value);
          setExisting([]);
        }}
      />
      {error ? <InlineError data-testid="mcp-import-error">{error}</InlineError> : null}
      <div className="flex flex-wrap justify-end gap-2">
        <button type="button" className={BUTTON_SECONDARY} onClick={onCancel} disabled={busy}>
          {t("cancel")}
        </button>
        {existing.length > 0 ? (
          <button
            type="button"
            data-testid="mcp-import-replace"
            className={BUTTON_SECONDARY}
            disabled={busy}
            onClick={() => void send(existing)}
          >
            {t("importReplace", { names: existing.join(", ") })}
          </button>
        ) : null}
        <button
          type="submit"
          data-testid="mcp-import-submit"
          className={BUTTON_PRIMARY}
          disabled={busy || !config.trim()}
        >
          {t("import")}
        </button>
      </div>
    </form>
  );
}
