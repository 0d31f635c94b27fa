/** The app's health, the settings page (roles, keep-alive, search backend), and the tool groups a chat can switch. */
import type { z } from "zod";
import type { settingsBody } from "@/app/api/settings/schema";
import type { EffectiveSettings } from "@/lib/admin-settings";
import type { Health, SettingsView, ToolGroup } from "../types";
import { errorFromResponse, jsonBody, request, unreachable } from "./request";

/** An admin's change: each role's model and keep-alive (null: back to the default), the search backend. */
export type SettingsPatch = z.input<typeof settingsBody>;

export const settingsApi = {
  /** The health report; a 503 (database down) still carries the report, so it is returned too. */
  async health(): Promise<Health> {
    let response: Response;
    try {
      response = await fetch("/api/health", { cache: "no-store" });
    } catch {
      throw unreachable();
    }
    if (response.ok || response.status === 503) return (await response.json()) as Health;
    throw await errorFromResponse(response);
  },

  settings: () => request<SettingsView>("/api/settings", { cache: "no-store" }),

  updateSettings: (body: SettingsPatch) => request<EffectiveSettings>("/api/settings", jsonBody("PATCH", body)),

  /** The tool groups a conversation can switch: web and each enabled MCP server. */
  toolGroups: () => request<{ groups: ToolGroup[] }>("/api/tool-groups", { cache: "no-store" }),
};
