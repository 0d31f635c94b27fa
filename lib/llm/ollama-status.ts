import "server-only";
import { getConfig, ollamaUrls } from "@/lib/env-config";
import { getOllamaPool } from "./registry";

export interface OllamaStatus {
  reachable: boolean;
  version: string | null;
  /** Why Ollama could not be reached and where it was looked for: admins only. */
  error?: string;
}

/**
 * Whether Ollama answers (any one of several servers), for the health route and the settings page (from a probe at most
 * VERSION_FRESH_MS old, see `OllamaApi.version`). Where it runs and why it
 * failed are infrastructure, so only `detailed` callers (admins) get them (docs/security.md).
 */
export async function checkOllama({ detailed }: { detailed: boolean }): Promise<OllamaStatus> {
  try {
    return { reachable: true, version: await getOllamaPool().version() };
  } catch (error) {
    if (!detailed) return { reachable: false, version: null };
    const reason = error instanceof Error ? error.message : String(error);
    const config = getConfig();
    const where = config.OLLAMA_BASE_URLS
      ? `none of OLLAMA_BASE_URLS answers: ${ollamaUrls(config).join(", ")}`
      : `OLLAMA_BASE_URL is ${config.OLLAMA_BASE_URL}`;
    return { reachable: false, version: null, error: `${reason} (${where})` };
  }
}
