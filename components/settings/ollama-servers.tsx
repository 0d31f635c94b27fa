"use client";

import { CircleCheck, CircleHelp, CircleX } from "lucide-react";
import { useId } from "react";
import useSWR from "swr";
import { useFormatter, useNow, useTranslations } from "use-intl";
import { INPUT, InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { ServerState } from "@/lib/llm/ollama-pool";

/** The Ollama servers (one, or those of OLLAMA_BASE_URLS), refreshed with the loaded models. */
export function useOllamaServers() {
  return useSWR(cacheKeys.ollamaServers, () => api.ollamaServers(), { refreshInterval: 15_000 });
}

const STATE_STYLE: Record<ServerState, { icon: typeof CircleCheck; className: string }> = {
  up: { icon: CircleCheck, className: "text-emerald-700 dark:text-emerald-300" },
  down: { icon: CircleX, className: "text-red-700 dark:text-red-300" },
  unknown: { icon: CircleHelp, className: "text-muted-foreground" },
};

/** Each server: up or down (and why, and when it is probed again), version, models, what is loaded, load. */
export function OllamaServers() {
  const t = useTranslations("modelAdmin");
  const message = useErrorText();
  const format = useFormatter();
  const now = useNow({ updateInterval: 15_000 });
  const { data, error } = useOllamaServers();
  return (
    <div className="rounded-xl border border-border" data-testid="ollama-servers">
      {error ? <InlineError className="m-3">{message(error)}</InlineError> : null}
      <ul className="divide-y divide-border">
        {data?.servers.map((server) => {
          const { icon: Icon, className } = STATE_STYLE[server.state];
          const facts = [
            server.version ? t("serverVersion", { version: server.version }) : null,
            server.models === null ? null : t("serverModels", { count: server.models }),
            server.loaded.length > 0 ? t("serverLoaded", { list: server.loaded.join(", ") }) : null,
            t("serverInFlight", { count: server.inFlight }),
          ].filter(Boolean);
          return (
            <li
              key={server.url}
              data-testid="ollama-server"
              data-url={server.url}
              data-state={server.state}
              className="space-y-1 px-4 py-3"
            >
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <span className={`inline-flex items-center gap-1.5 text-sm font-medium ${className}`}>
                  <Icon aria-hidden className="size-4" />
                  {t(`serverState.${server.state}`)}
                </span>
                <p className="min-w-0 flex-1 break-all font-mono text-sm">{server.url}</p>
              </div>
              <p className="text-xs text-muted-foreground">{facts.join(" · ")}</p>
              {server.state === "down" ? (
                <p className="break-words text-xs text-red-700 dark:text-red-300" data-testid="ollama-server-error">
                  {[
                    server.error,
                    server.retryAt === null
                      ? null
                      : t("serverRetry", { when: format.relativeTime(new Date(server.retryAt), now) }),
                  ]
                    .filter(Boolean)
                    .join(" · ")}
                </p>
              ) : null}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** Which server a pull or delete acts on: one, or all (""), offered only when there are several. */
export function ServerChoice({
  label,
  allLabel,
  servers,
  value,
  onChange,
  disabled,
  testId,
}: {
  label: string;
  allLabel: string;
  servers: string[];
  value: string;
  onChange: (value: string) => void;
  disabled?: boolean;
  testId: string;
}) {
  const id = useId();
  if (servers.length < 2) return null;
  return (
    <div className="min-w-[12rem]">
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      <select
        id={id}
        data-testid={testId}
        className={INPUT}
        value={value}
        disabled={disabled}
        onChange={(event) => onChange(event.target.value)}
      >
        <option value="">{allLabel}</option>
        {servers.map((url) => (
          <option key={url} value={url}>
            {url}
          </option>
        ))}
      </select>
    </div>
  );
}
