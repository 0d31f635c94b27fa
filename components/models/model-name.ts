import type { ModelInfo } from "@/lib/client/types";

/** A server label as the settings allow it (lib/env-config.ts): no `@`, `:` or spaces. */
const SERVER_LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;

export interface ModelNameParts {
  /** The model's own name: Ollama's, or the one its OpenAI-compatible server gives it. */
  model: string;
  /** The label of its OpenAI-compatible server; null for an Ollama model. */
  server: string | null;
}

/**
 * How a model is named to the user: an OpenAI-compatible server's model (`<model>@<label>`,
 * docs/architecture.md "OpenAI-compatible servers") by its own name beside its server's label. A name
 * not in the list (a model gone) is split at its last `@` when what follows can be a label.
 */
export function modelNameParts(name: string, info?: ModelInfo): ModelNameParts {
  if (info?.openaiCompatible) return { model: info.openaiCompatible.model, server: info.openaiCompatible.label };
  if (info) return { model: name, server: null };
  const at = name.lastIndexOf("@");
  const label = name.slice(at + 1);
  return at > 0 && SERVER_LABEL.test(label)
    ? { model: name.slice(0, at), server: label }
    : { model: name, server: null };
}

/** One line for a model: "qwen3 · llama" for a server's, the name itself for Ollama's. */
export function modelDisplayName(name: string, info?: ModelInfo): string {
  const { model, server } = modelNameParts(name, info);
  return server ? `${model} · ${server}` : model;
}

export interface ModelGroup {
  /** null: Ollama's models; else the OpenAI-compatible server's label. */
  server: string | null;
  models: ModelInfo[];
}

/** Ollama's models first, then each server's in the order the list names them. */
export function groupModels(models: ModelInfo[]): ModelGroup[] {
  const groups = new Map<string | null, ModelInfo[]>([[null, []]]);
  for (const model of models) {
    const server = model.openaiCompatible?.label ?? null;
    groups.set(server, [...(groups.get(server) ?? []), model]);
  }
  return [...groups]
    .map(([server, grouped]) => ({ server, models: grouped }))
    .filter((group) => group.models.length > 0);
}
