import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A plain script of lib/files run in a child process or worker thread, by absolute path: next to this
 * module (vitest, plain Node, Turbopack when it maps `import.meta.url` to the source file), else under
 * the working directory (`next start` runs in the project root). The `turbopackIgnore` comments keep
 * Next's output tracing away from these runtime paths.
 */
export function localScript(
  name: string,
  what: string,
  moduleUrl: string = import.meta.url,
  cwd: string = process.cwd(),
): string {
  const candidates: string[] = [];
  if (moduleUrl.startsWith("file:")) {
    candidates.push(path.join(/*turbopackIgnore: true*/ path.dirname(fileURLToPath(moduleUrl)), name));
  }
  candidates.push(path.join(/*turbopackIgnore: true*/ cwd, "lib", "files", name));
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`The ${what} script is missing (looked for ${candidates.join(", ")}).`);
  return found;
}
