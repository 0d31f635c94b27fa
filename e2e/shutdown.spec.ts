import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import Database from "better-sqlite3";
import { fakeOllama } from "./support/fake-ollama";
import { freePort } from "./support/free-port";
import { FAKE_OLLAMA_URL } from "./support/servers";

/**
 * SIGTERM to the production server stores running answers as interrupted (docs/architecture.md,
 * "Persistence"), with the text they had and their events, and leaves no half-written rows. A server of its
 * own, so the shared one keeps serving the other tests.
 */

test("SIGTERM stores a running answer as interrupted and exits cleanly", async () => {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ow-shutdown-"));
  const server: ChildProcess = spawn(
    process.execPath,
    ["node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(port)],
    {
      env: { ...process.env, DATA_DIR: dataDir, OLLAMA_BASE_URL: FAKE_OLLAMA_URL, NEXT_TELEMETRY_DISABLED: "1" },
      stdio: "ignore",
    },
  );
  const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  try {
    await expect
      .poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status ?? 0, { timeout: 20_000 })
      .toBe(200);
    expect(fs.readFileSync(path.join(dataDir, "server.pid"), "utf8")).toBe(String(server.pid));

    await fakeOllama.script({
      when: { hasTools: true },
      chunks: Array.from({ length: 60 }, (_, i) => `part${i} `),
      chunkDelayMs: 100,
    });
    const created = await (
      await fetch(`${base}/api/conversations`, {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json" },
      })
    ).json();
    const response = await fetch(`${base}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ conversationId: created.conversation.id, message: "a long answer please" }),
    });
    // Read until a few deltas arrived, then stop the server.
    const reader = response.body!.getReader();
    let seen = "";
    while (!seen.includes("part3 ")) seen += new TextDecoder().decode((await reader.read()).value);
    server.kill("SIGTERM");
    expect(await exited).toBe(0);
    await reader.cancel().catch(() => {});

    const db = new Database(path.join(dataDir, "ollama-web.sqlite"), { readonly: true });
    try {
      const run = db.prepare("select status, error from runs").get() as { status: string; error: string };
      expect(run.status).toBe("interrupted");
      expect(run.error).toContain("shut down");
      const answers = db.prepare("select status, content from messages where role = 'assistant'").all() as {
        status: string;
        content: string;
      }[];
      expect(answers).toHaveLength(1);
      expect(answers[0]?.status).toBe("interrupted");
      expect(answers[0]?.content.startsWith("part0 part1 part2 part3")).toBe(true);
      const events = db.prepare("select type, data from run_events order by seq").all() as {
        type: string;
        data: string;
      }[];
      // The stored error lets a reload word the shutdown in the UI's language.
      expect(events.map((e) => e.type)).toEqual(["run", "answer", "error"]);
      expect(JSON.parse(events[2]?.data ?? "{}")).toMatchObject({ code: "unavailable:server_shutdown" });
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      db.close();
    }
    expect(fs.existsSync(path.join(dataDir, "server.pid"))).toBe(false);
  } finally {
    if (server.exitCode === null) server.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
