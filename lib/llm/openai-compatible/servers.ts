import "server-only";
import { getConfig, type OpenAICompatibleServer, openAICompatibleServers } from "@/lib/env-config";
import { keyedSingleton } from "@/lib/util/process-singleton";
import { fetchServerModels, type ServerModels } from "./server-models";

/**
 * The configured OpenAI-compatible servers and what each has. One look per server is shared by
 * every request for a short while, so the model list and health polls cost the servers little.
 */

export const SERVER_MODELS_FRESH_MS = 2000;
/** How long a server may take to list its models before it counts as down. */
const LIST_TIMEOUT_MS = 5000;

interface Look {
  at: number;
  answer: Promise<ServerModels[]>;
}

const processLook = keyedSingleton<{ look?: Look }>("openAICompatibleModels");

export function configuredServers(): OpenAICompatibleServer[] {
  return openAICompatibleServers(getConfig());
}

/** Each configured server's models and state, in configured order (none configured: none). */
export function listServerModels(): Promise<ServerModels[]> {
  const servers = configuredServers();
  const held = processLook(JSON.stringify(servers), () => ({}));
  const now = Date.now();
  if (!held.look || now - held.look.at > SERVER_MODELS_FRESH_MS) {
    held.look = { at: now, answer: Promise.all(servers.map((server) => fetchServerModels(server, LIST_TIMEOUT_MS))) };
  }
  return held.look.answer;
}
