/** The user's memory: what the assistant remembers about them, and their own memory switches. */
import type { z } from "zod";
import type {
  createMemoryBody,
  dismissProposalBody,
  memorySettingsBody,
  updateMemoryBody,
} from "@/app/api/memories/schema";
import type { PublicMemory } from "@/lib/db/memories";
import type { MemoryPreferences } from "@/lib/memory/preferences";
import { jsonBody, request } from "./request";

export type CreateMemoryRequest = z.input<typeof createMemoryBody>;
export type UpdateMemoryRequest = z.input<typeof updateMemoryBody>;
export type MemorySettingsRequest = z.input<typeof memorySettingsBody>;
export type DismissProposalRequest = z.input<typeof dismissProposalBody>;
export type { MemoryPreferences, PublicMemory };

const memoryPath = (id: string) => `/api/memories/${encodeURIComponent(id)}`;

/** The SWR keys of the memories (Settings → Memory and the answers' chips read the list) and of the switches. */
export const MEMORIES_KEY = "/api/memories";
export const MEMORY_SETTINGS_KEY = "/api/memories/settings";
/** The SWR key of a run's dismissed proposals (its answer's chips read them). */
export const dismissalsKey = (runId: string) => `/api/memories/dismissals?runId=${encodeURIComponent(runId)}`;

/** Where the browser downloads the user's memories as JSON. */
export const memoriesExportUrl = "/api/memories/export";

export const memoriesApi = {
  memories: () => request<{ memories: PublicMemory[] }>("/api/memories", { cache: "no-store" }),

  createMemory: (body: CreateMemoryRequest) =>
    request<{ memory: PublicMemory }>("/api/memories", jsonBody("POST", body)),

  updateMemory: (id: string, body: UpdateMemoryRequest) =>
    request<{ memory: PublicMemory }>(memoryPath(id), jsonBody("PATCH", body)),

  deleteMemory: (id: string) => request<void>(memoryPath(id), { method: "DELETE" }),

  /** The texts of the run's `remember` proposals the user dismissed. */
  dismissals: (runId: string) => request<{ dismissed: string[] }>(dismissalsKey(runId), { cache: "no-store" }),

  dismissProposal: (body: DismissProposalRequest) => request<void>("/api/memories/dismissals", jsonBody("POST", body)),

  memorySettings: () => request<{ settings: MemoryPreferences }>("/api/memories/settings", { cache: "no-store" }),

  updateMemorySettings: (body: MemorySettingsRequest) =>
    request<{ settings: MemoryPreferences }>("/api/memories/settings", jsonBody("PATCH", body)),
};
