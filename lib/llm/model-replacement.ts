/**
 * Which installed model stands in for one that is gone. Framework-free: the server names it in its
 * refusal and the composer offers it, and both must name the same one.
 */

/** Ollama treats `llama3.2` and `llama3.2:latest` as one model. */
export function sameModel(a: string, b: string): boolean {
  const norm = (name: string) => (name.includes(":") ? name : `${name}:latest`).toLowerCase();
  return norm(a) === norm(b);
}

const baseName = (name: string) => name.split(":")[0]?.toLowerCase() ?? name;

/**
 * The closest installed name (the same model under another tag, e.g. `qwen3:4b` for `qwen3:8b`),
 * else the default model when it is installed, else the first installed one; null when none is.
 */
export function replacementModel(missing: string, installed: string[], defaultModel?: string | null): string | null {
  const sameBase = installed.find((name) => baseName(name) === baseName(missing));
  if (sameBase) return sameBase;
  const fallback = defaultModel ? installed.find((name) => sameModel(name, defaultModel)) : undefined;
  return fallback ?? installed[0] ?? null;
}
