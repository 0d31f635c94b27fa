import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCanvas } from "@napi-rs/canvas";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { makeGifBomb, makePng, withDamagedCrc } from "@/tests/support/image-fixtures";
import { childCommand, childScriptPath, type DecodeLimits, decodeInChild } from "./image-decode";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MISBEHAVING = path.join(root, "tests/support/image-child/misbehaving.mjs");
const LIMITS: DecodeLimits = { timeoutMs: 15_000, memoryMb: 512, concurrency: 2 };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "image-decode-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
/** Children a test starts itself; killed even when the test fails or times out. */
const spawned: ChildProcess[] = [];
afterEach(() => {
  for (const child of spawned.splice(0)) child.kill("SIGKILL");
});

/** A job for the misbehaving child: what to do, and a file where it writes its pid. */
function misbehave(
  action: "abort" | "exit" | "hang" | "slow" | "spin",
  file = path.join(dir, `${action}-${Math.random()}`),
) {
  return {
    job: {
      bytes: Buffer.from(JSON.stringify({ action, file })),
      maxSide: 1024,
      quality: 85,
      format: "image/jpeg" as const,
    },
    pids: () =>
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.startsWith("start "))
        .map((line) => Number(line.slice(6))),
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function job(bytes: Buffer) {
  return { bytes, maxSide: 1024, quality: 85, format: "image/jpeg" as const };
}

describe("decoding in a child process: its failure is this image's, never the server's", () => {
  it("decodes and resizes in the child", async () => {
    const canvas = createCanvas(2048, 1024);
    canvas.getContext("2d").fillRect(0, 0, 10, 10);
    const outcome = await decodeInChild(job(Buffer.from(canvas.encodeSync("png"))), LIMITS);
    expect(outcome).toMatchObject({ ok: true, width: 1024, height: 512 });
    if (outcome.ok) expect(outcome.bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  it("turns Skia's abort on the 34-byte GIF (decoded here without its check) into an outcome; this process lives on", async () => {
    const outcome = await decodeInChild(job(makeGifBomb()), LIMITS);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(["out_of_memory", "crashed"]).toContain(outcome.reason);
      expect(outcome.message).toMatch(/memory limit|crashed/);
    }
    expect(isAlive(process.pid)).toBe(true);
  });

  it("turns the segfault on a PNG with a damaged IHDR CRC (decoded here without its check) into a crash outcome", async () => {
    const png = withDamagedCrc(makePng({ width: 4, height: 4 }), "IHDR");
    expect(await decodeInChild(job(png), LIMITS)).toEqual({
      ok: false,
      reason: "crashed",
      message: "the decoder crashed on it (SIGSEGV)",
    });
  });

  it("reports what the decoder refuses to read as undecodable, with its reason", async () => {
    expect(await decodeInChild(job(Buffer.from("not an image")), LIMITS)).toEqual({
      ok: false,
      reason: "undecodable",
      message: "the decoder cannot read it (Unsupported image type)",
    });
  });

  it.runIf(process.platform === "linux")(
    "caps the child's memory at IMAGE_DECODE_MEMORY_MB: a 16-megapixel decode under a 100 MB cap fails cleanly",
    async () => {
      const canvas = createCanvas(4000, 4000);
      canvas.getContext("2d").fillRect(0, 0, 10, 10);
      const png = Buffer.from(canvas.encodeSync("png"));
      const outcome = await decodeInChild(job(png), { ...LIMITS, memoryMb: 100 });
      expect(outcome).toEqual({
        ok: false,
        reason: "out_of_memory",
        message: "decoding it needed more than the 100 MB memory limit",
      });
      expect(await decodeInChild(job(png), LIMITS)).toMatchObject({ ok: true, width: 1024, height: 1024 });
    },
  );

  it("a child killed by a signal is a crash outcome", async () => {
    const { job } = misbehave("abort");
    expect(await decodeInChild(job, LIMITS, MISBEHAVING)).toEqual({
      ok: false,
      reason: "crashed",
      message: "the decoder crashed on it (SIGABRT)",
    });
  });

  it("a child that exits without answering is a crash outcome", async () => {
    const { job } = misbehave("exit");
    expect(await decodeInChild(job, LIMITS, MISBEHAVING)).toMatchObject({
      ok: false,
      reason: "crashed",
      message: "the decoder crashed on it (exit code 3)",
    });
  });

  it("kills a child that does not answer within IMAGE_DECODE_TIMEOUT_S", async () => {
    const { job, pids } = misbehave("hang");
    const outcome = await decodeInChild(job, { ...LIMITS, timeoutMs: 500 }, MISBEHAVING);
    expect(outcome).toEqual({
      ok: false,
      reason: "timeout",
      message: "decoding it took longer than 0.5 s and was stopped",
    });
    const [pid] = pids();
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid as number)).toBe(false);
  });

  it.runIf(process.platform === "linux")(
    "a child left spinning with nobody to kill it dies at its CPU limit (a second past the timeout)",
    async () => {
      const { file, args } = childCommand(MISBEHAVING, { ...LIMITS, timeoutMs: 1000 });
      const child = spawn(file, args, { stdio: ["ignore", "ignore", "ignore", "ipc"], serialization: "advanced" });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_, signal) => resolve(signal)));
      spawned.push(child);
      child.send(misbehave("spin").job); // and then nobody kills it, as after the server died
      expect(["SIGXCPU", "SIGKILL"]).toContain(await exited);
    },
    60_000, // CPU seconds accrue slower than wall-clock ones on a busy machine
  );

  it("runs at most IMAGE_DECODE_CONCURRENCY children at once", async () => {
    const file = path.join(dir, "concurrency");
    const jobs = Array.from({ length: 3 }, () => misbehave("slow", file).job);
    const outcomes = await Promise.all(
      jobs.map((job) => decodeInChild(job, { ...LIMITS, concurrency: 1 }, MISBEHAVING)),
    );
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    const events = fs
      .readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(" ")[0]);
    expect(events).toEqual(["start", "end", "start", "end", "start", "end"]);
  });

  it("finds the child script next to its module, else in the working directory (next start)", () => {
    const expected = path.join(root, "lib/files/image-decode-child.mjs");
    expect(childScriptPath()).toBe(expected);
    expect(childScriptPath("file:///nowhere/chunk.js", root)).toBe(expected);
    expect(childScriptPath("/ROOT/.next/server/chunks/ssr/x.js", root)).toBe(expected);
    expect(() => childScriptPath("file:///nowhere/chunk.js", "/nowhere")).toThrow(/image decoder script is missing/);
  });
});
