import type * as zlib from "node:zlib";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { POST as importFile } from "@/app/api/conversations/import/route";
import { getDb } from "@/lib/db/client";
import { conversations } from "@/lib/db/schema";
import { resetConfigForTests } from "@/lib/env-config";
import { MEASURE_CHUNK_BYTES } from "@/lib/files/zip-entries";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { expectApiError, setupAppEnv } from "@/tests/support/app-env";
import { makeZip } from "@/tests/support/zip-fixtures";

/**
 * What an import inflates, counted by wrapping node:zlib: every buffer inflation hands back (or, for
 * the one-shot form, is allowed to grow to), so a test sees how much of a bomb was ever held.
 */
const inflation = vi.hoisted(() => ({ largestHeld: 0, total: 0 }));

vi.mock("node:zlib", async (importOriginal) => {
  const actual = await importOriginal<typeof zlib>();
  const note = (held: number) => {
    inflation.largestHeld = Math.max(inflation.largestHeld, held);
    inflation.total += held;
  };
  const inflateRaw = (data: zlib.InputType, options: zlib.ZlibOptions, callback: zlib.CompressCallback) =>
    actual.inflateRaw(data, options, (error, result) => {
      note(error ? (options.maxOutputLength ?? 0) : result.length);
      callback(error, result);
    });
  const createInflateRaw = (options?: zlib.ZlibOptions) => {
    const stream = actual.createInflateRaw(options);
    stream.on("data", (chunk: Buffer) => note(chunk.length));
    return stream;
  };
  return { ...actual, default: { ...actual, inflateRaw, createInflateRaw }, inflateRaw, createInflateRaw };
});

const fake = setupFakeOllama();
setupAppEnv(fake);

const MB = 1024 * 1024;

describe("importing a ZIP bomb", () => {
  beforeEach(() => {
    process.env.IMPORT_MAX_INFLATED_MB = "1";
    resetConfigForTests();
    inflation.largestHeld = 0;
    inflation.total = 0;
  });
  afterEach(() => {
    delete process.env.IMPORT_MAX_INFLATED_MB;
    resetConfigForTests();
  });

  it("is refused holding one inflated chunk at a time, and inflating no more than the limit and a chunk", async () => {
    const bomb = makeZip([
      { name: "0001 small.json", data: Buffer.alloc(200 * 1024, 0x20) },
      { name: "0002 bomb.json", data: Buffer.alloc(64 * MB, 0x20), claimedSize: 10 },
    ]);
    expect(bomb.length).toBeLessThan(200 * 1024);
    const response = await importFile(
      new Request("http://127.0.0.1/api/conversations/import", { method: "POST", body: new Uint8Array(bomb) }),
    );
    await expectApiError(response, 413, "payload_too_large:import_archive");
    expect(inflation.largestHeld).toBeGreaterThan(0);
    expect(inflation.largestHeld).toBeLessThanOrEqual(MEASURE_CHUNK_BYTES);
    expect(inflation.total).toBeLessThanOrEqual(MB + MEASURE_CHUNK_BYTES);
    expect(await (await getDb()).select().from(conversations)).toEqual([]);
  });
});
