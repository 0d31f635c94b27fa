/**
 * The installed models, and an admin's model management on the Ollama servers: pulling, deleting,
 * loading state, each server's status. `server` (a server's URL as configured) narrows an action to
 * one server; without it, pull, delete and unload act on every one.
 */
import type { z } from "zod";
import type { modelBody } from "@/app/api/admin/schema";
import type { ModelDetails } from "@/lib/llm/ollama-api";
import type { OllamaServerStatus, PooledLoadedModel } from "@/lib/llm/ollama-pool";
import type { OpenAICompatibleServerStatus } from "@/lib/llm/openai-compatible/server-models";
import type { PullEvent } from "@/lib/protocol/pull-events";
import type { ModelList } from "../types";
import { jsonBody, openStream, request } from "./request";

export type ModelRequest = z.input<typeof modelBody>;
type Model = ModelRequest["model"];
type Server = ModelRequest["server"];

/** `?model=` and `&server=`, as the routes that read or delete one model take them. */
function modelQuery({ model, server }: ModelRequest): string {
  return `?model=${encodeURIComponent(model)}${server ? `&server=${encodeURIComponent(server)}` : ""}`;
}

export const modelsApi = {
  models: () => request<ModelList>("/api/models"),

  /** Pulls a model once the server accepted it: its progress events as they arrive; abort `signal` to cancel. */
  pullModel: async (model: Model, signal: AbortSignal, server?: Server): Promise<AsyncIterable<PullEvent>> =>
    ndjsonEvents<PullEvent>(
      await openStream("/api/admin/models/pull", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ model, server } satisfies ModelRequest),
        signal,
      }),
    ),

  /** Deletes a model from one Ollama server, else from every one that has it. */
  deleteModel: (model: Model, server?: Server) =>
    request<void>(`/api/admin/models${modelQuery({ model, server })}`, { method: "DELETE" }),

  ollamaServers: () =>
    request<{ servers: OllamaServerStatus[]; openaiCompatible: OpenAICompatibleServerStatus[] }>(
      "/api/admin/models/servers",
      { cache: "no-store" },
    ),

  modelDetails: (model: Model) =>
    request<{ model: ModelDetails }>(`/api/admin/models/details${modelQuery({ model })}`, { cache: "no-store" }),

  loadedModels: () => request<{ models: PooledLoadedModel[] }>("/api/admin/models/loaded", { cache: "no-store" }),

  unloadModel: (model: Model, server?: Server) =>
    request<void>("/api/admin/models/unload", jsonBody("POST", { model, server } satisfies ModelRequest)),
};

/** One JSON value per line of an NDJSON body. */
async function* ndjsonEvents<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += decoder.decode(read.value, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) yield JSON.parse(line) as T;
  }
}
