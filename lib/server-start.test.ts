import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { closeDbForTests, DB_FILENAME } from "./db/client";
import { resetConfigForTests } from "./env-config";
import { startServer } from "./server-start";

/** Runs startServer with process.exit stubbed; returns what it printed to stderr. */
async function startAndExpectExit(): Promise<string[]> {
  const errors: string[] = [];
  vi.spyOn(console, "error").mockImplementation((line: string) => errors.push(line));
  vi.spyOn(console, "log").mockImplementation(() => {});
  const exit = vi.spyOn(process, "exit").mockImplementation(((code?: number) => {
    throw new Error(`exit ${code}`);
  }) as typeof process.exit);
  await expect(startServer()).rejects.toThrow("exit 1");
  expect(exit).toHaveBeenCalledWith(1);
  return errors;
}

describe("server start", () => {
  afterEach(async () => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    resetConfigForTests();
    await closeDbForTests();
  });

  it("a bad variable stops the server with one line naming it", async () => {
    vi.stubEnv("MAX_TOOL_ROUNDS", "many");
    resetConfigForTests();
    expect(await startAndExpectExit()).toEqual([
      'Invalid configuration: MAX_TOOL_ROUNDS must be a positive whole number (got "many")',
    ]);
  });
});

describe("an unusable DATA_DIR stops the server with one line naming it", () => {
  let scratch = "";
  afterEach(() => {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  function fileInScratch(): string {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-datadir-"));
    const file = path.join(scratch, "not-a-dir");
    fs.writeFileSync(file, "");
    return file;
  }

  it("a file, not a directory", async () => {
    const file = fileInScratch();
    vi.stubEnv("DATA_DIR", file);
    resetConfigForTests();
    expect(await startAndExpectExit()).toEqual([`Invalid configuration: DATA_DIR is not a directory: ${file}`]);
  });

  it("a database file that cannot be opened", async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-datadir-"));
    fs.mkdirSync(path.join(scratch, DB_FILENAME));
    vi.stubEnv("DATA_DIR", scratch);
    resetConfigForTests();
    const errors = await startAndExpectExit();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(new RegExp(`^Cannot open the database in DATA_DIR ${scratch}: `));
  });

  it("a directory that cannot be created (a parent is a file)", async () => {
    const dir = path.join(fileInScratch(), "data");
    vi.stubEnv("DATA_DIR", dir);
    resetConfigForTests();
    expect(await startAndExpectExit()).toEqual([
      `Invalid configuration: DATA_DIR cannot be created (a parent is not a directory): ${dir}`,
    ]);
  });
});
