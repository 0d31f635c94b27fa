// The fake's model catalogue and what each server says of it: `GET /v1/models` (both), `GET /props` (llama-server).
import { randomBytes } from "node:crypto";
import type { Flavor } from "./flavor";

export interface FakeOpenAIModel {
  id: string;
  /** vLLM's `max_model_len`; llama-server's per-slot `n_ctx`. Prompts this long are refused. */
  contextLength: number;
  /** A fixed `created`. Both real servers send the current time on every list, which is the default. */
  created?: number;
  /** false: llama-server started without --jinja, vLLM without --enable-auto-tool-choice. Default true. */
  tools?: boolean;
  /** The response_format types it honours (default both). */
  jsonModes?: ("json_object" | "json_schema")[];
  /** What happens to another one: "reject" (400, the server's wording; default) or "ignore" (free text). */
  unsupportedFormat?: "reject" | "ignore";
  /** false: no reasoning parser, so thinking stays in content as `<think>…</think>`. Default true. */
  reasoning?: boolean;
}

export const DEFAULT_MODELS: Record<Flavor, FakeOpenAIModel[]> = {
  "llama-server": [{ id: "Qwen3-8B-Q4_K_M.gguf", contextLength: 32768 }],
  vllm: [{ id: "Qwen/Qwen3-8B", contextLength: 40960 }],
};

export const BUILD_INFO = "b7200-5f8a1c3d";

const now = () => Math.floor(Date.now() / 1000);

/** llama-server answers both the OpenAI list (`data`) and an Ollama-style `models` list in one body. */
export function modelsBody(flavor: Flavor, models: FakeOpenAIModel[]) {
  if (flavor === "vllm") {
    return {
      object: "list",
      data: models.map((m) => ({
        id: m.id,
        object: "model",
        created: m.created ?? now(),
        owned_by: "vllm",
        root: m.id,
        parent: null,
        max_model_len: m.contextLength,
        permission: [modelPermission()],
      })),
    };
  }
  const meta = { vocab_type: 2, n_vocab: 151936, n_ctx_train: 40960, n_embd: 4096, n_params: 8190735360 };
  return {
    // An Ollama-style list beside the OpenAI one, trimmed here to what identifies the model.
    models: models.map((m) => ({ name: m.id, model: m.id, type: "model", capabilities: ["completion"] })),
    object: "list",
    data: models.map((m) => ({
      id: m.id,
      aliases: [],
      tags: [],
      object: "model",
      created: m.created ?? now(),
      owned_by: "llamacpp",
      meta: { ...meta, n_ctx: m.contextLength },
    })),
  };
}

function modelPermission() {
  const id = `modelperm-${randomBytes(16).toString("hex")}`;
  const allowed = { allow_create_engine: false, allow_sampling: true, allow_logprobs: true, allow_view: true };
  return {
    id,
    object: "model_permission",
    created: now(),
    ...allowed,
    organization: "*",
    group: null,
    is_blocking: false,
  };
}

/** `GET /props` of a server with one model; `model` undefined is a router (several models), which knows no n_ctx. */
export function propsBody(model: FakeOpenAIModel | undefined) {
  if (!model) {
    return {
      role: "router",
      max_instances: 4,
      model_alias: "llama-server",
      model_path: "none",
      default_generation_settings: { params: {}, n_ctx: 0 },
      build_info: BUILD_INFO,
    };
  }
  return {
    default_generation_settings: {
      params: { n_predict: -1, seed: 4294967295, temperature: 0.8, top_k: 40, top_p: 0.95, min_p: 0.05 },
      n_ctx: model.contextLength,
    },
    total_slots: 4,
    model_alias: model.id,
    model_path: `/models/${model.id}`,
    modalities: { vision: false, audio: false },
    chat_template:
      "{%- for message in messages %}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n{%- endfor %}",
    eos_token: "<|im_end|>",
    build_info: BUILD_INFO,
    is_sleeping: false,
  };
}
