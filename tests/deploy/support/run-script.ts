import { spawn } from "node:child_process";
import path from "node:path";

export interface ScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` from the project root with `env` on top of this process's environment. */
export function runCommand(command: string, args: string[], env: Record<string, string>): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: process.cwd(),
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs `node scripts/<name> ...args` from the project root, as `npm run` would, with `env` on top of
 * this process's environment. Asynchronous, so the test can keep writing to the database meanwhile.
 */
export function runNodeScript(name: string, args: string[], env: Record<string, string>): Promise<ScriptResult> {
  return runCommand(process.execPath, [path.join("scripts", name), ...args], env);
}
