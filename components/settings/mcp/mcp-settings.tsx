"use client";

import { FileJson, Plus } from "lucide-react";
import { useState } from "react";
import useSWR from "swr";
import { useTranslations } from "use-intl";
import { Section } from "@/components/shell/page-frame";
import { BUTTON_SECONDARY, InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import { api, newServerTransport } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { McpServerView } from "@/lib/client/types";
import { ImportForm } from "./import-form";
import { ServerCard } from "./server-card";
import { ServerForm, type ServerFormValue } from "./server-form";

type Open = { form: "add" } | { form: "edit"; server: McpServerView } | { form: "import" } | null;

/**
 * The admin's "MCP servers" section: the servers of the `MCP_CONFIG` file (read-only) and of this
 * page, each with its state and tools; add, edit, import. Every change reads the list again.
 */
export function McpSettings() {
  const t = useTranslations("mcp");
  const message = useErrorText();
  const { data, error, mutate } = useSWR(cacheKeys.mcpServers, () => api.mcpServers());
  const [open, setOpen] = useState<Open>(null);
  /** Runs a change and reads the list again; resolves with its error in words, or null. */
  const changed = async (change: () => Promise<unknown>) => {
    let failure: string | null = null;
    try {
      await change();
    } catch (error) {
      failure = message(error);
    }
    await mutate();
    return failure;
  };
  const save = (value: ServerFormValue) =>
    changed(async () => {
      if (open?.form === "edit") await api.updateMcpServer(value.name, { transport: value.transport });
      else await api.addMcpServer({ name: value.name, transport: newServerTransport(value.transport) });
      setOpen(null);
    });

  return (
    <Section title={t("section")} description={t("description")} testId="settings-mcp">
      {error ? <InlineError>{message(error)}</InlineError> : null}
      {data?.file ? (
        <p data-testid="mcp-file" className="text-sm text-muted-foreground">
          {t("fileFrom", { path: data.file.path })}
        </p>
      ) : null}
      {data?.file?.error ? <InlineError data-testid="mcp-file-error">{data.file.error}</InlineError> : null}
      {data && data.servers.length > 0 ? (
        <ul className="divide-y divide-border rounded-xl border border-border">
          {data.servers.map((server) =>
            open?.form === "edit" && open.server.name === server.name && server.origin === "settings" ? (
              <li key={`${server.origin}:${server.name}`} className="p-2">
                <ServerForm
                  server={server}
                  stdioAllowed={data.stdioFromUi}
                  onSubmit={save}
                  onCancel={() => setOpen(null)}
                />
              </li>
            ) : (
              <ServerCard
                key={`${server.origin}:${server.name}`}
                server={server}
                actions={{
                  update: (body) => changed(() => api.updateMcpServer(server.name, body)),
                  test: () => changed(() => api.connectMcpServer(server.name)),
                  remove: () => changed(() => api.removeMcpServer(server.name)),
                  edit: () => setOpen({ form: "edit", server }),
                }}
              />
            ),
          )}
        </ul>
      ) : data ? (
        <p data-testid="mcp-empty" className="text-sm text-muted-foreground">
          {t("empty")}
        </p>
      ) : null}
      {/* Opened once the section's data is in: the form picks its first transport from stdioFromUi. */}
      {open?.form === "add" && data ? (
        <ServerForm stdioAllowed={data.stdioFromUi} onSubmit={save} onCancel={() => setOpen(null)} />
      ) : null}
      {open?.form === "import" ? (
        <ImportForm
          onDone={() => {
            setOpen(null);
            void mutate();
          }}
          onCancel={() => setOpen(null)}
        />
      ) : null}
      {open === null ? (
        <div className="flex flex-wrap gap-2">
          <button
            type="button"
            data-testid="mcp-add"
            className={BUTTON_SECONDARY}
            onClick={() => setOpen({ form: "add" })}
          >
            <Plus aria-hidden className="size-4" />
            {t("addServer")}
          </button>
          <button
            type="button"
            data-testid="mcp-import"
            className={BUTTON_SECONDARY}
            onClick={() => setOpen({ form: "import" })}
          >
            <FileJson aria-hidden className="size-4" />
            {t("importJson")}
          </button>
        </div>
      ) : null}
    </Section>
  );
}
