"use client";

import { useId, useState } from "react";
import { useTranslations } from "use-intl";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { BUTTON_SECONDARY, InlineError } from "@/components/ui/field";
import { Switch } from "@/components/ui/switch";
import { cx } from "@/lib/client/cx";
import type { McpServerView } from "@/lib/client/types";
import { type McpToolApproval, type ToolApprovalPolicy, toolApprovalPolicy } from "@/lib/mcp/types";
import { ApprovalSelect } from "./approval-select";
import { ServerStatus } from "./server-status";

export interface ServerActions {
  /** Each resolves with an error message to show, or null. */
  update: (body: {
    enabled?: boolean;
    disabledTools?: string[];
    toolApproval?: McpToolApproval;
  }) => Promise<string | null>;
  test: () => Promise<string | null>;
  remove: () => Promise<string | null>;
  edit: () => void;
}

const summary = (server: McpServerView) =>
  server.transport.type === "stdio"
    ? [server.transport.command, ...server.transport.args].join(" ")
    : server.transport.url;

/**
 * One server: where it is configured, its state and error, its tools. A stored server can be
 * switched, edited, tested and removed (asked first), its tools switched one by one and their
 * approval policy set, for the server and per tool; a server of the `MCP_CONFIG` file can only be
 * tested (its policies are set in the file, and shown).
 */
export function ServerCard({ server, actions }: { server: McpServerView; actions: ServerActions }) {
  const t = useTranslations("mcp");
  const titleId = useId();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const editable = server.origin === "settings";
  const tools = server.state.tools;

  const act = async (action: () => Promise<string | null>) => {
    setBusy(true);
    setError(await action());
    setBusy(false);
  };
  const { toolApproval } = server;
  const setServerPolicy = (policy: ToolApprovalPolicy | null) =>
    act(() => actions.update({ toolApproval: { ...toolApproval, default: policy } }));
  const setToolPolicy = (tool: string, policy: ToolApprovalPolicy | null) => {
    const { [tool]: _previous, ...others } = toolApproval.tools;
    return act(() =>
      actions.update({ toolApproval: { ...toolApproval, tools: policy ? { ...others, [tool]: policy } : others } }),
    );
  };
  const toggleTool = (tool: string, on: boolean) =>
    act(() =>
      actions.update({
        disabledTools: on ? server.disabledTools.filter((name) => name !== tool) : [...server.disabledTools, tool],
      }),
    );

  return (
    <li data-testid="mcp-server" data-name={server.name} aria-labelledby={titleId} className="space-y-3 px-4 py-3">
      <div className="flex flex-col gap-x-3 gap-y-2 sm:flex-row sm:items-start">
        <div className="min-w-0 flex-1 space-y-1">
          <p className="flex flex-wrap items-center gap-2">
            <span id={titleId} className="font-mono text-sm font-medium">
              {server.name}
            </span>
            <ServerStatus state={server.state} />
            {editable ? null : (
              <span className="rounded-full bg-amber-50 px-2 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-400/10 dark:text-amber-200">
                {t("fromFile")}
              </span>
            )}
          </p>
          <p className="truncate font-mono text-xs text-muted-foreground" title={summary(server)}>
            {summary(server)}
          </p>
          {server.shadowedByFile ? (
            <p data-testid="mcp-shadowed" className="text-xs text-amber-800 dark:text-amber-200">
              {t("shadowed")}
            </p>
          ) : null}
          {server.state.error ? (
            <p data-testid="mcp-error" className="break-words text-xs text-red-700 dark:text-red-300">
              {server.state.error}
            </p>
          ) : null}
        </div>
        {confirming ? null : (
          <div className="flex flex-wrap items-center gap-1.5">
            {editable ? (
              <Switch
                on={server.enabled}
                onChange={(on) => void act(() => actions.update({ enabled: on }))}
                disabled={busy}
                label={t("enabledLabel", { name: server.name })}
                testId="mcp-enabled"
              />
            ) : null}
            <button
              type="button"
              data-testid="mcp-test"
              className={BUTTON_SECONDARY}
              disabled={busy || !server.enabled || server.shadowedByFile}
              onClick={() => void act(actions.test)}
            >
              {t("test")}
            </button>
            {editable ? (
              <>
                <button type="button" data-testid="mcp-edit" className={BUTTON_SECONDARY} onClick={actions.edit}>
                  {t("edit")}
                </button>
                <button
                  type="button"
                  data-testid="mcp-remove"
                  className={cx(BUTTON_SECONDARY, "text-red-700 dark:text-red-300")}
                  disabled={busy}
                  onClick={() => setConfirming(true)}
                >
                  {t("remove")}
                </button>
              </>
            ) : null}
          </div>
        )}
      </div>
      <ConfirmDialog
        inline
        open={confirming}
        title={t("removeTitle", { name: server.name })}
        text={t("removeConfirm", { name: server.name })}
        cancelLabel={t("cancel")}
        confirmLabel={t("removeConfirmButton")}
        confirmTestId="mcp-remove-confirm"
        onClose={() => setConfirming(false)}
        onConfirm={actions.remove}
      />
      <div className="flex flex-wrap items-center gap-2 text-xs text-muted-foreground">
        <span>{t("approval.server", { name: server.name })}</span>
        <ApprovalSelect
          value={toolApproval.default}
          inherited={t("approval.byAnnotations")}
          onChange={(policy) => void setServerPolicy(policy)}
          disabled={busy || !editable}
          label={t("approval.server", { name: server.name })}
          testId="mcp-approval-default"
        />
        <span className="basis-full">{t("approval.note")}</span>
      </div>
      {tools.length > 0 ? (
        <ul aria-label={t("toolsOf", { name: server.name })} className="space-y-1.5 border-t border-border pt-3">
          {tools.map((tool) => {
            const labelId = `${titleId}-${tool.name}`;
            return (
              <li key={tool.name} data-testid="mcp-tool" data-tool={tool.qualifiedName} className="flex gap-3">
                <div className="min-w-0 flex-1">
                  <p id={labelId} className="font-mono text-xs font-medium">
                    {tool.qualifiedName}
                  </p>
                  {tool.description ? (
                    <p className="line-clamp-2 text-xs text-muted-foreground">{tool.description}</p>
                  ) : null}
                </div>
                <ApprovalSelect
                  value={toolApproval.tools[tool.name] ?? null}
                  inherited={t("approval.effective", {
                    policy: toolApprovalPolicy({ default: toolApproval.default, tools: {} }, tool),
                  })}
                  onChange={(policy) => void setToolPolicy(tool.name, policy)}
                  disabled={busy || !editable}
                  label={t("approval.tool", { tool: tool.qualifiedName })}
                  testId="mcp-tool-approval"
                />
                {editable ? (
                  <Switch
                    size="sm"
                    on={tool.enabled}
                    onChange={(on) => void toggleTool(tool.name, on)}
                    disabled={busy}
                    labelledBy={labelId}
                    testId="mcp-tool-switch"
                  />
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : null}
      {server.state.droppedTools?.length ? (
        <ul aria-label={t("droppedOf", { name: server.name })} className="space-y-1 border-t border-border pt-3">
          {server.state.droppedTools.map((tool) => (
            <li key={tool.name} data-testid="mcp-dropped-tool" data-tool={tool.name} className="text-xs">
              <span className="font-mono font-medium">{tool.name}</span>{" "}
              <span className="text-amber-800 dark:text-amber-200">{t("dropped", { reason: tool.reason })}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {error ? <InlineError data-testid="mcp-server-error">{error}</InlineError> : null}
    </li>
  );
}
