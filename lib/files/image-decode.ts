import "server-only";
import { spawn } from "node:child_process";
import { Semaphore } from "@/lib/util/semaphore";
import { localScript } from "./local-script";

/**
 * Decodes and re-encodes one image in a child process (`image-decode-child.mjs`), because Skia
 * answers a failed allocation with abort(), which no try/catch and no worker thread survives. A
 * crash, a signal, a memory blow-up past the cap or a hang past the timeout is an outcome for that
 * image only; the server lives on. The caller has already checked the image's frames
 * (image-inspect.ts), so a normal image never comes near the memory cap.
 */

export interface DecodeJob {
  bytes: Buffer;
  maxSide: number;
  quality: number;
  format: "image/jpeg" | "image/webp";
}

export interface DecodeLimits {
  /** IMAGE_DECODE_TIMEOUT_S, in ms: the child is killed after it. */
  timeoutMs: number;
  /** IMAGE_DECODE_MEMORY_MB: the child's data segment (every malloc and private mapping) on Linux. */
  memoryMb: number;
  /** IMAGE_DECODE_CONCURRENCY: children alive at once; more images wait their turn. */
  concurrency: number;
}

export type DecodeFailure = "undecodable" | "crashed" | "out_of_memory" | "timeout";

export type DecodeOutcome =
  | { ok: true; bytes: Buffer; width: number; height: number }
  | { ok: false; reason: DecodeFailure; message: string };

type ChildAnswer = { ok: true; bytes: Uint8Array; width: number; height: number } | { ok: false; message: string };

const CHILD_SCRIPT = "image-decode-child.mjs";
const STDERR_KEPT = 2000;

/** `script` is for tests, which swap in a child that hangs or dies. */
export async function decodeInChild(
  job: DecodeJob,
  limits: DecodeLimits,
  script: string = childScriptPath(),
): Promise<DecodeOutcome> {
  const release = await slots.acquire(limits.concurrency);
  try {
    return await runChild(job, limits, script);
  } finally {
    release();
  }
}

function runChild(job: DecodeJob, limits: DecodeLimits, script: string): Promise<DecodeOutcome> {
  return new Promise((resolve, reject) => {
    const { file, args } = childCommand(script, limits);
    // No inherited environment: NODE_OPTIONS and the server's secrets have no business there.
    const child = spawn(file, args, {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
      env: { PATH: process.env.PATH ?? "", NODE_ENV: process.env.NODE_ENV },
    });
    let answer: ChildAnswer | undefined;
    let timedOut = false;
    let stderr = "";
    let settled = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, limits.timeoutMs);
    child.stderr?.setEncoding("utf8").on("data", (text: string) => {
      stderr = (stderr + text).slice(-STDERR_KEPT);
    });
    child.on("message", (message: ChildAnswer) => {
      answer ??= message;
    });
    child.on("error", (error) => {
      // Only a child that could not be started (or killed) gets here: a server problem, not the image's.
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    });
    child.on("close", (code, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcomeOf({ answer, timedOut, code, signal, stderr, limits }));
    });
    // A child that died before reading the job ends in "close" with its exit status.
    child.send(job, () => {});
  });
}

function outcomeOf({
  answer,
  timedOut,
  code,
  signal,
  stderr,
  limits,
}: {
  answer: ChildAnswer | undefined;
  timedOut: boolean;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  limits: DecodeLimits;
}): DecodeOutcome {
  if (answer?.ok) {
    const bytes = Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength);
    return { ok: true, bytes, width: answer.width, height: answer.height };
  }
  if (answer) return { ok: false, reason: "undecodable", message: `the decoder cannot read it (${answer.message})` };
  if (timedOut) {
    return {
      ok: false,
      reason: "timeout",
      message: `decoding it took longer than ${limits.timeoutMs / 1000} s and was stopped`,
    };
  }
  const lines = stderr.trim().split("\n");
  const telling = lines.find((line) => /fatal|panick|memory|error/i.test(line)) ?? lines.at(-1);
  console.warn(`[image] the decoder process ended (${signal ?? `exit code ${code}`}): ${telling}`);
  if (/alloc|out of memory/i.test(stderr)) {
    return {
      ok: false,
      reason: "out_of_memory",
      message: `decoding it needed more than the ${limits.memoryMb} MB memory limit`,
    };
  }
  return { ok: false, reason: "crashed", message: `the decoder crashed on it (${signal ?? `exit code ${code}`})` };
}

/**
 * Node with a V8 heap cap. On Linux a shell sets two kernel limits, then execs node: RLIMIT_DATA
 * (`ulimit -d`, which covers malloc and anonymous mappings since Linux 4.7, so Skia's pixel buffers
 * too) and RLIMIT_CPU (`ulimit -t`, a second past the timeout: a child orphaned by a dead server
 * while spinning in native code is still killed). Were a hard limit already lower, it applies.
 */
export function childCommand(script: string, limits: DecodeLimits): { file: string; args: string[] } {
  const node = [`--max-old-space-size=${Math.ceil(limits.memoryMb / 4)}`, script];
  if (process.platform !== "linux") return { file: process.execPath, args: node };
  const cpuSeconds = Math.ceil(limits.timeoutMs / 1000) + 1;
  return {
    file: "/bin/sh",
    args: [
      "-c",
      'ulimit -d "$1" 2>/dev/null; ulimit -t "$2" 2>/dev/null; shift 2; exec "$@"',
      "image-decode",
      String(limits.memoryMb * 1024),
      String(cpuSeconds),
      process.execPath,
      ...node,
    ],
  };
}

/** The child script (see `localScript`). */
export function childScriptPath(moduleUrl?: string, cwd?: string): string {
  return localScript(CHILD_SCRIPT, "image decoder", moduleUrl, cwd);
}

const slots = new Semaphore();
