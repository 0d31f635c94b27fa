import "server-only";
import { getConfig, type OpenAICompatibleServer } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { processSingleton } from "@/lib/util/process-singleton";
import type { AbilityOverride } from "../ability-override";
import type { ModelInfo } from "../ollama-api";
import type { Abilities } from "../types";
import { AbilityProbes } from "./ability-probe";
import { unreachableError } from "./openai-errors";
import { modelNameOn } from "./openai-llm";
import { keyRefusedError, type ServerModel } from "./server-models";
import { configuredServers, listServerModels } from "./servers";

/**
 * The models of the OpenAI-compatible servers as the app names them, `<model>@<label>`
 * (docs/architecture.md, "OpenAI-compatible servers"): which server a name routes to, what its model
 * can do (the admin's word, else the probe) and how long its context is.
 */

/** One probe cache per process, shared by every route and run. */
export const abilityProbes = processSingleton("openAICompatibleProbes", () => new AbilityProbes());

/** The server a `<model>@<label>` name routes to (its label matched without case), or null: an Ollama name. */
export function serverModelName(name: string): { server: OpenAICompatibleServer; model: string } | null {
  const at = name.lastIndexOf("@");
  if (at <= 0) return null;
  const label = name.slice(at + 1).toLowerCase();
  const server = configuredServers().find((candidate) => candidate.label.toLowerCase() === label);
  return server ? { server, model: name.slice(0, at) } : null;
}

/** The models a server has now; a refused key or a server away is its error, named by its label. */
export async function serverModels(server: OpenAICompatibleServer): Promise<ServerModel[]> {
  const look = (await listServerModels()).find((entry) => entry.label === server.label);
  if (look?.state === "key_refused") throw keyRefusedError(server, look.refusedStatus ?? 401);
  if (!look || look.state === "down") {
    throw unreachableError(server.label, "it does not answer", new Error(look?.error ?? "not looked at"));
  }
  return look.models;
}

export interface DescribedServerModel {
  server: OpenAICompatibleServer;
  model: ServerModel;
  /** As the app names it, the label spelled as configured. */
  name: string;
  abilities: Abilities;
  contextLength: number;
}

function abilitiesOf(override: AbilityOverride, probed: { tool_call: boolean; json_mode: boolean }): Abilities {
  return {
    tool_call: override.tool_call ?? probed.tool_call,
    json_mode: override.json_mode ?? probed.json_mode,
    // These servers do not say; only the admin does.
    vision: override.vision ?? false,
    thinking: override.thinking ?? false,
  };
}

/**
 * A server model with its abilities: the admin's override where set, else the probe's answer,
 * probed on first use. A name the server does not have is an `unknown_model` error.
 */
export async function describeServerModel(
  name: string,
  overrides: Record<string, AbilityOverride>,
): Promise<DescribedServerModel> {
  const routed = serverModelName(name);
  if (!routed) throw new Error(`${name} names no OpenAI-compatible server`);
  const { server } = routed;
  const canonical = modelNameOn(routed.model, server.label);
  const model = (await serverModels(server)).find((candidate) => candidate.name === routed.model);
  if (!model) {
    throw new AppError("bad_request:unknown_model", `Model '${canonical}' is not on the server "${server.label}".`, {
      details: { model: canonical },
    });
  }
  const override = overrides[canonical] ?? {};
  const probes = abilityProbes();
  const [tool_call, json_mode] = await Promise.all([
    override.tool_call ?? probes.get(server, model, "tool_call"),
    override.json_mode ?? probes.get(server, model, "json_mode"),
  ]);
  return {
    server,
    model,
    name: canonical,
    abilities: abilitiesOf(override, { tool_call, json_mode }),
    contextLength: model.contextLength ?? getConfig().OPENAI_COMPATIBLE_CONTEXT,
  };
}

/** A server model in the model list, tagged with its server. */
export type ServerModelInfo = ModelInfo & { openaiCompatible: { label: string; model: string } };

/**
 * Every up server's models, one entry per server for a name two have. Abilities are the override or
 * what a probe found, never probed here (a list is read often); not yet known is false.
 */
export async function listServerModelInfos(overrides: Record<string, AbilityOverride>): Promise<ServerModelInfo[]> {
  const servers = configuredServers();
  const looks = await listServerModels();
  const probes = abilityProbes();
  const fallbackContext = getConfig().OPENAI_COMPATIBLE_CONTEXT;
  return looks.flatMap((look) => {
    const server = servers.find((candidate) => candidate.label === look.label);
    if (!server || look.state !== "up") return [];
    return look.models.map((model): ServerModelInfo => {
      const name = modelNameOn(model.name, server.label);
      const abilities = abilitiesOf(overrides[name] ?? {}, {
        tool_call: probes.known(server, model, "tool_call") ?? false,
        json_mode: probes.known(server, model, "json_mode") ?? false,
      });
      return {
        name,
        family: null,
        parameterSize: null,
        quantization: null,
        sizeBytes: null,
        capabilities: [
          "completion",
          ...(abilities.tool_call ? ["tools"] : []),
          ...(abilities.thinking ? ["thinking"] : []),
          ...(abilities.vision ? ["vision"] : []),
        ],
        contextLength: model.contextLength ?? fallbackContext,
        abilities,
        openaiCompatible: { label: server.label, model: model.name },
      };
    });
  });
}
