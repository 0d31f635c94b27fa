import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as create } from "@/app/api/conversations/route";
import { GET as health } from "@/app/api/health/route";
import { closeDbForTests, getDb } from "@/lib/db/client";
import { resetConfigForTests } from "@/lib/env-config";
import { jsonRequest } from "@/tests/support/app-env";
import { startThrowawayPostgres, type ThrowawayPostgres } from "@/tests/support/throwaway-postgres";

/**
 * PostgreSQL going away under a running app (a restart, a failover, the network): requests get a
 * 503 with Retry-After that the client retries, as when SQLite is locked by another process
 * (tests/api/database-busy-api.test.ts), not a 500; health says the database is unavailable.
 * A cluster of this file's own, since it is stopped half-way.
 */

let cluster: ThrowawayPostgres;
let dataDir: string;

beforeAll(async () => {
  cluster = await startThrowawayPostgres();
  const database = await cluster.createDatabase("unreachable");
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-api-"));
  process.env.DATA_DIR = dataDir;
  process.env.DATABASE_URL = database.url;
  process.env.DATABASE_CONNECT_TIMEOUT_MS = "1000";
  resetConfigForTests();
  await closeDbForTests();
  await getDb();
});

afterAll(async () => {
  await closeDbForTests();
  await cluster.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const healthBody = async () => {
  const response = await health(jsonRequest("/api/health", "GET"));
  return { status: response.status, body: (await response.json()) as { db: boolean; dbStatus: string; store: string } };
};

describe("a PostgreSQL that cannot be reached", () => {
  it("answers with 503 database_unreachable, Retry-After and retryable, as a busy SQLite does; health says unavailable", async () => {
    expect((await create(jsonRequest("/api/conversations", "POST", { title: "before" }))).status).toBe(201);
    expect((await healthBody()).body).toMatchObject({ db: true, dbStatus: "ok", store: "postgres" });

    await cluster.stop();

    const response = await create(jsonRequest("/api/conversations", "POST", { title: "while away" }));
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    const body = (await response.json()) as { error: { code: string; retryable?: boolean } };
    expect(body.error).toMatchObject({ code: "unavailable:database_unreachable", retryable: true });

    const after = await healthBody();
    expect(after.status).toBe(503);
    expect(after.body).toMatchObject({ db: false, dbStatus: "unavailable", store: "postgres" });
  });
});
