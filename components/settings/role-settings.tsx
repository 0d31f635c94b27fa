"use client";

import { useId } from "react";
import { useTranslations } from "use-intl";
import { ModelOptions } from "@/components/models/model-options";
import { useModels } from "@/components/models/use-models";
import { Section } from "@/components/shell/page-frame";
import { INPUT } from "@/components/ui/field";
import type { SettingsPatch } from "@/lib/client/api";
import type { ModelInfo, SettingsView } from "@/lib/client/types";
import { MODEL_ROLES, type ModelRole, ROLE_ENV } from "@/lib/llm/model-roles";
import { SourceBadge } from "./source-badge";

/** Which installed model plays each role, and the search backend. */
export function RoleSettings({
  settings,
  onSave,
}: {
  settings: SettingsView;
  onSave: (patch: SettingsPatch) => Promise<void>;
}) {
  const t = useTranslations("settings");
  const { models } = useModels();
  const backendId = useId();
  const backend = settings.searchBackend;
  return (
    <>
      <Section
        title={t("rolesSection")}
        description={`${t("rolesDescription")} ${t("keepAliveDescription", { default: settings.keepAlive.default.value })}`}
        testId="settings-roles"
      >
        <div className="divide-y divide-border rounded-xl border border-border">
          {MODEL_ROLES.map((role) => (
            <RoleRow
              key={role}
              role={role}
              value={settings.roles[role].value}
              source={settings.roles[role].source}
              keepAlive={settings.keepAlive.roles[role]}
              defaultKeepAlive={settings.keepAlive.default.value}
              onKeepAlive={(value) => void onSave({ keepAlive: { [role]: value } })}
              editable={settings.editable}
              models={models}
              onChange={(value) => void onSave({ roles: { [role]: value } })}
            />
          ))}
        </div>
      </Section>
      <Section title={t("searchSection")} testId="settings-search">
        <div className="grid items-center gap-x-3 gap-y-2 rounded-xl border border-border p-4 sm:grid-cols-[minmax(0,1fr)_14rem_auto]">
          <label htmlFor={backendId} className="text-sm font-medium">
            {t("searchBackend")}
          </label>
          <select
            id={backendId}
            data-testid="search-backend"
            className={INPUT}
            value={backend.value}
            disabled={!settings.editable || backend.source === "env"}
            onChange={(event) =>
              void onSave({ searchBackend: event.target.value === "searxng" ? "searxng" : "duckduckgo" })
            }
          >
            <option value="duckduckgo">DuckDuckGo</option>
            <option value="searxng">SearXNG</option>
          </select>
          <div>
            <SourceBadge source={backend.source} envName="SEARCH_BACKEND" />
          </div>
        </div>
      </Section>
    </>
  );
}

function RoleRow({
  role,
  value,
  source,
  editable,
  models,
  onChange,
  keepAlive,
  defaultKeepAlive,
  onKeepAlive,
}: {
  role: ModelRole;
  value: string | null;
  source: SettingsView["roles"][ModelRole]["source"];
  editable: boolean;
  models: ModelInfo[];
  onChange: (value: string | null) => void;
  keepAlive: string | null;
  defaultKeepAlive: string;
  onKeepAlive: (value: string | null) => void;
}) {
  const t = useTranslations("settings");
  const id = useId();
  const hintId = useId();
  const keepAliveId = useId();
  const readOnly = !editable || source === "env";
  return (
    <div
      data-testid="role-row"
      data-role={role}
      className="grid items-center gap-x-3 gap-y-2 px-4 py-3 sm:grid-cols-[minmax(0,1fr)_14rem_7rem_auto]"
    >
      <div className="min-w-0">
        <label htmlFor={id} className="text-sm font-medium">
          {t(`role.${role}`)}
        </label>
        <p id={hintId} className="text-xs text-muted-foreground">
          {t(`roleHint.${role}`)}
        </p>
      </div>
      <select
        id={id}
        data-testid={`role-${role}`}
        aria-describedby={hintId}
        className={INPUT}
        value={value ?? ""}
        disabled={readOnly}
        onChange={(event) => onChange(event.target.value || null)}
      >
        <option value="">{t("roleDefault")}</option>
        {/* A configured model that is not installed (any more) stays visible as the current value. */}
        <ModelOptions models={models} kept={value} />
      </select>
      <div>
        <label htmlFor={keepAliveId} className="sr-only">
          {t("keepAliveFor", { role: t(`role.${role}`) })}
        </label>
        <input
          id={keepAliveId}
          data-testid={`keep-alive-${role}`}
          className={INPUT}
          // A new key when the saved value changes resets what is typed to it.
          key={keepAlive ?? ""}
          defaultValue={keepAlive ?? ""}
          placeholder={defaultKeepAlive}
          title={t("keepAliveHint")}
          maxLength={32}
          disabled={!editable}
          onBlur={(event) => {
            const next = event.target.value.trim() || null;
            if (next !== keepAlive) onKeepAlive(next);
          }}
          onKeyDown={(event) => {
            if (event.key === "Enter") event.currentTarget.blur();
          }}
        />
      </div>
      <div>
        <SourceBadge source={source} envName={ROLE_ENV[role]} />
      </div>
    </div>
  );
}
