import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { chosenStore, resetConfigForTests } from "@/lib/env-config";
import { closeDbForTests, getDb } from "./client";

let scratch = "";

afterEach(async () => {
  await closeDbForTests();
  vi.unstubAllEnvs();
  resetConfigForTests();
  fs.rmSync(scratch, { recursive: true, force: true });
});

function useDataDir(dir: string): void {
  vi.stubEnv("DATA_DIR", dir);
  resetConfigForTests();
}

describe("the process's database", () => {
  it("is opened once: every caller gets the same handle", async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-getdb-"));
    useDataDir(scratch);
    const [first, second] = await Promise.all([getDb(), getDb()]);
    expect(second).toBe(first);
    expect(await getDb()).toBe(first);
  });

  it.runIf(chosenStore() === "sqlite")("a failed open is not kept: the next call opens it again", async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-getdb-"));
    const file = path.join(scratch, "a-file");
    fs.writeFileSync(file, "");
    // DATA_DIR below a file: the directory cannot be made, so the open fails.
    useDataDir(path.join(file, "data"));
    await expect(getDb()).rejects.toThrow();
    useDataDir(path.join(scratch, "data"));
    const db = await getDb();
    expect(fs.existsSync(path.join(scratch, "data"))).toBe(true);
    expect(await getDb()).toBe(db);
  });

  it.runIf(chosenStore() === "postgres")("a failed connection is not kept: the next call connects again", async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-getdb-"));
    useDataDir(scratch);
    // Nothing listens on port 1: the connection is refused.
    vi.stubEnv("DATABASE_URL", "postgres://nobody@127.0.0.1:1/nothing");
    resetConfigForTests();
    await expect(getDb()).rejects.toThrow();
    vi.unstubAllEnvs();
    useDataDir(scratch);
    const db = await getDb();
    expect(await getDb()).toBe(db);
  });
});
