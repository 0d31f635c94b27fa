"use client";

import { type FormEvent, useState } from "react";
import { useTranslations } from "use-intl";
import { BUTTON_PRIMARY, BUTTON_SECONDARY, InlineError } from "@/components/ui/field";
import { SelectField, TextAreaField, TextField } from "@/components/ui/text-field";
import type { McpServerView, McpTransportPatch } from "@/lib/client/types";
import { type KeyValueRow, KeyValueRows, newRow, rowsToRecord } from "./key-value-rows";

export interface ServerFormValue {
  name: string;
  transport: McpTransportPatch;
}

const savedRows = (values: Record<string, string | null>) => Object.keys(values).map((key) => newRow(key, true));

/**
 * Adds a server, or edits a stored one (its name stays). Stdio: command, arguments (one per line),
 * env, working directory; HTTP: URL and headers. Saved secrets are never shown: left empty, kept.
 */
export function ServerForm({
  server,
  stdioAllowed,
  onSubmit,
  onCancel,
}: {
  server?: McpServerView;
  /** MCP_STDIO_FROM_UI=1: stdio servers may be added and changed here; else the form says where to. */
  stdioAllowed: boolean;
  /** Resolves with an error message to show, or null when saved. */
  onSubmit: (value: ServerFormValue) => Promise<string | null>;
  onCancel: () => void;
}) {
  const t = useTranslations("mcp");
  const initial = server?.transport;
  const [name, setName] = useState(server?.name ?? "");
  const [type, setType] = useState<"stdio" | "http">(initial?.type ?? (stdioAllowed ? "stdio" : "http"));
  /** A stdio server that this server does not let the page change: shown, not editable. */
  const locked = type === "stdio" && !stdioAllowed;
  const [command, setCommand] = useState(initial?.type === "stdio" ? initial.command : "");
  const [args, setArgs] = useState(initial?.type === "stdio" ? initial.args.join("\n") : "");
  const [cwd, setCwd] = useState(initial?.type === "stdio" ? (initial.cwd ?? "") : "");
  const [env, setEnv] = useState<KeyValueRow[]>(initial?.type === "stdio" ? savedRows(initial.env) : []);
  const [url, setUrl] = useState(initial?.type === "http" ? initial.url : "");
  const [headers, setHeaders] = useState<KeyValueRow[]>(initial?.type === "http" ? savedRows(initial.headers) : []);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const transport: McpTransportPatch =
      type === "stdio"
        ? {
            type,
            command: command.trim(),
            args: args.split("\n").filter((line) => line.trim() !== ""),
            env: rowsToRecord(env),
            ...(cwd.trim() ? { cwd: cwd.trim() } : {}),
          }
        : { type, url: url.trim(), headers: rowsToRecord(headers) };
    setSaving(true);
    setError(await onSubmit({ name: name.trim(), transport }));
    setSaving(false);
  };

  return (
    <form
      data-testid="mcp-server-form"
      aria-label={server ? t("editTitle", { name: server.name }) : t("addTitle")}
      onSubmit={(event) => void submit(event)}
      className="space-y-4 rounded-xl border border-border bg-card p-4"
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          mono
          verbatim
          label={t("name")}
          hint={t("nameHint")}
          data-testid="mcp-name"
          value={name}
          onChange={setName}
          disabled={server !== undefined}
          required
          maxLength={32}
        />
        <SelectField
          label={t("transport")}
          data-testid="mcp-type"
          value={type}
          onChange={(value) => setType(value === "http" ? "http" : "stdio")}
        >
          <option value="stdio" disabled={!stdioAllowed}>
            {t("stdio")}
          </option>
          <option value="http">{t("http")}</option>
        </SelectField>
      </div>
      {!stdioAllowed ? (
        <p data-testid="mcp-stdio-off" className="text-xs text-muted-foreground">
          {t("stdioOff")}
        </p>
      ) : null}
      {type === "stdio" ? (
        <fieldset disabled={locked} className="space-y-4">
          <TextField
            mono
            verbatim
            label={t("command")}
            data-testid="mcp-command"
            value={command}
            onChange={setCommand}
            placeholder="npx"
            required
          />
          <TextAreaField
            mono
            verbatim
            label={t("args")}
            hint={t("argsHint")}
            data-testid="mcp-args"
            className="min-h-20"
            value={args}
            onChange={setArgs}
            placeholder={"-y\n@modelcontextprotocol/server-filesystem\n/srv/docs"}
          />
          <KeyValueRows legend={t("env")} rows={env} onChange={setEnv} keyPlaceholder="API_KEY" testId="mcp-env" />
          <TextField mono verbatim label={t("cwd")} value={cwd} onChange={setCwd} placeholder={t("cwdPlaceholder")} />
        </fieldset>
      ) : (
        <>
          <TextField
            mono
            verbatim
            label={t("url")}
            data-testid="mcp-url"
            type="url"
            value={url}
            onChange={setUrl}
            placeholder="https://mcp.example.com/mcp"
            required
          />
          <KeyValueRows
            legend={t("headers")}
            rows={headers}
            onChange={setHeaders}
            keyPlaceholder="Authorization"
            testId="mcp-headers"
          />
        </>
      )}
      {error ? <InlineError data-testid="mcp-form-error">{error}</InlineError> : null}
      <div className="flex flex-wrap justify-end gap-2">
        <button type="button" className={BUTTON_SECONDARY} onClick={onCancel} disabled={saving}>
          {t("cancel")}
        </button>
        <button type="submit" data-testid="mcp-save" className={BUTTON_PRIMARY} disabled={saving || locked}>
          {server ? t("save") : t("add")}
        </button>
      </div>
    </form>
  );
}
