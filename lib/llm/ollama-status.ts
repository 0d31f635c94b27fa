import "server-only";
import { getConfig } from "@/lib/config";
import { getOllamaApi } from "./registry";

export interface OllamaStatus {
  reachable: boolean;
  version: string | null;
  /** Why Ollama could not be reached and where it was looked for: admins only. */
  error?: string;
}

/**
 * Whether Ollama answers, for the health route and the settings page (from a probe at most
 * VERSION_FRESH_MS old, see `OllamaApi.version`). Where it runs and why it
 * failed are infrastructure, so only `detailed` callers (admins) get them (docs/security.md).
 */
export async function checkOllama({ detailed }: { detailed: boolean }): Promise<OllamaStatus> {
  try {
    return { reachable: true, version: await getOllamaApi().version() };
  } catch (error) {
    if (!detailed) return { reachable: false, version: null };
    const reason = error instanceof Error ? error.message : String(error);
    return { reachable: false, version: null, error: `${reason} (OLLAMA_BASE_URL is ${getConfig().OLLAMA_BASE_URL})` };
  }
}
