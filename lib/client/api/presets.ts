/** The user's presets: a saved model, instructions and options a new chat can start with. */
import type { z } from "zod";
import type { presetBody, presetPatch } from "@/app/api/presets/schema";
import type { Preset } from "../types";
import { jsonBody, request } from "./request";

/** What a preset holds, as `POST /api/presets` takes it (a field left out: its default). */
export type PresetFields = z.input<ReturnType<typeof presetBody>>;
export type PresetPatch = z.input<ReturnType<typeof presetPatch>>;

const presetPath = (id: string) => `/api/presets/${encodeURIComponent(id)}`;

export const presetsApi = {
  presets: () => request<{ presets: Preset[] }>("/api/presets", { cache: "no-store" }),

  createPreset: (body: PresetFields) => request<{ preset: Preset }>("/api/presets", jsonBody("POST", body)),

  updatePreset: (id: string, body: PresetPatch) => request<{ preset: Preset }>(presetPath(id), jsonBody("PATCH", body)),

  deletePreset: (id: string) => request<void>(presetPath(id), { method: "DELETE" }),
};
