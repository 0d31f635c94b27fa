import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DELETE, GET as getOne, PATCH } from "@/app/api/conversations/[id]/route";
import { POST as create, GET as list } from "@/app/api/conversations/route";
import { GET as health } from "@/app/api/health/route";
import { GET as models } from "@/app/api/models/route";
import { getDb } from "@/lib/db/client";
import { insertMessage } from "@/lib/db/messages";
import { createRun } from "@/lib/db/runs";
import { runs } from "@/lib/db/schema";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { jsonRequest, params, setupAppEnv } from "@/tests/support/app-env";

const fake = setupFakeOllama();
setupAppEnv(fake);

async function createConversation(body: unknown = {}) {
  const response = await create(jsonRequest("/api/conversations", "POST", body));
  expect(response.status).toBe(201);
  return ((await response.json()) as { conversation: { id: string; title: string; model: string | null } })
    .conversation;
}

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(5);
  return body.error;
}

describe("GET /api/health", () => {
  it("reports the database, which store it is, and Ollama's version", async () => {
    const response = await health(jsonRequest("/api/health", "GET"));
    expect(await response.json()).toEqual({
      ok: true,
      db: true,
      dbStatus: "ok",
      store: process.env.DATABASE_URL ? "postgres" : "sqlite",
      ollama: { reachable: true, version: "0.12.10" },
      openaiCompatible: [],
      runs: { active: 0 },
    });
  });

  it("says Ollama is unreachable without failing itself", async () => {
    const saved = process.env.OLLAMA_BASE_URL;
    process.env.OLLAMA_BASE_URL = "http://127.0.0.1:9";
    resetConfigForTests();
    try {
      const body = (await (await health(jsonRequest("/api/health", "GET"))).json()) as {
        ok: boolean;
        ollama: { reachable: boolean; error: string };
      };
      expect(body.ok).toBe(false);
      expect(body.ollama.reachable).toBe(false);
      expect(body.ollama.error).toContain("ollama serve");
    } finally {
      process.env.OLLAMA_BASE_URL = saved;
      resetConfigForTests();
    }
  });
});

describe("GET /api/models", () => {
  it("lists installed models with capabilities, context length and abilities", async () => {
    const body = (await (await models(jsonRequest("/api/models", "GET"))).json()) as {
      models: Record<string, unknown>[];
      defaultModel: string;
    };
    expect(body.models.map((m) => m.name)).toEqual(["llama3.2:latest", "qwen3:8b", "gemma:2b", "llava:7b"]);
    expect(body.models[1]).toMatchObject({
      capabilities: ["completion", "tools", "thinking"],
      contextLength: 40960,
      usableContext: 16384,
      abilities: { tool_call: true, thinking: true, vision: false, json_mode: true },
    });
    expect(body.defaultModel).toBe("llama3.2:latest");
  });

  it("answers 502 with how to fix it when Ollama is down", async () => {
    const saved = process.env.OLLAMA_BASE_URL;
    process.env.OLLAMA_BASE_URL = "http://127.0.0.1:9";
    resetConfigForTests();
    try {
      const error = await expectError(
        await models(jsonRequest("/api/models", "GET")),
        502,
        "upstream:ollama_unreachable",
      );
      expect(error.message).toContain("OLLAMA_BASE_URL");
    } finally {
      process.env.OLLAMA_BASE_URL = saved;
      resetConfigForTests();
    }
  });
});

describe("conversation routes", () => {
  it("creates, reads, renames, changes the model and deletes", async () => {
    const conversation = await createConversation({ title: "First", model: "qwen3:8b" });
    expect(conversation).toMatchObject({ title: "First", model: "qwen3:8b" });

    const detail = (await (await getOne(jsonRequest("", "GET"), params({ id: conversation.id }))).json()) as {
      conversation: { id: string };
      messages: unknown[];
      files: unknown[];
      activeRunId: string | null;
    };
    expect(detail).toMatchObject({ conversation: { id: conversation.id }, messages: [], files: [], activeRunId: null });

    const patched = await PATCH(
      jsonRequest("", "PATCH", { title: "Renamed", model: "gemma:2b" }),
      params({ id: conversation.id }),
    );
    expect(((await patched.json()) as { conversation: unknown }).conversation).toMatchObject({
      title: "Renamed",
      model: "gemma:2b",
    });

    expect((await DELETE(jsonRequest("", "DELETE"), params({ id: conversation.id }))).status).toBe(204);
    await expectError(
      await getOne(jsonRequest("", "GET"), params({ id: conversation.id })),
      404,
      "not_found:conversation",
    );
  });

  it("a run left running that no process holds (its end not yet stored) does not keep its conversation from being deleted", async () => {
    const conversation = await createConversation();
    const db = await getDb();
    await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q" });
    await createRun(db, { conversationId: conversation.id, mode: "native", model: "m" });
    expect((await DELETE(jsonRequest("", "DELETE"), params({ id: conversation.id }))).status).toBe(204);
    expect(await db.select().from(runs).where(eq(runs.conversationId, conversation.id))).toEqual([]);
  });

  it("lists newest first with search and a cursor", async () => {
    for (const title of ["alpha one", "beta two", "alpha three"]) await createConversation({ title });
    const body = (await (await list(jsonRequest("/api/conversations?q=alpha&limit=1", "GET"))).json()) as {
      conversations: { title: string }[];
      nextCursor: string;
    };
    expect(body.conversations.map((c) => c.title)).toEqual(["alpha three"]);
    const next = (await (
      await list(jsonRequest(`/api/conversations?q=alpha&limit=1&cursor=${body.nextCursor}`, "GET"))
    ).json()) as { conversations: { title: string }[]; nextCursor: string | null };
    expect(next.conversations.map((c) => c.title)).toEqual(["alpha one"]);
    expect(next.nextCursor).toBeNull();
  });

  it.each([
    ["malformed JSON", "{nope", "bad_request:malformed_json"],
    ["an empty body", "", "bad_request:empty_body"],
    ["an empty title", { title: "   " }, "bad_request:validation"],
    ["a wrong type", { title: 42 }, "bad_request:validation"],
  ])("rejects %s when creating with a 400 in the error shape", async (_label, body, code) => {
    await expectError(await create(jsonRequest("/api/conversations", "POST", body)), 400, code);
  });

  it("rejects a PATCH that changes nothing, and a bad cursor or limit", async () => {
    const conversation = await createConversation();
    await expectError(
      await PATCH(jsonRequest("", "PATCH", {}), params({ id: conversation.id })),
      400,
      "bad_request:validation",
    );
    await expectError(await list(jsonRequest("/api/conversations?cursor=zzz", "GET")), 400, "bad_request:cursor");
    await expectError(await list(jsonRequest("/api/conversations?limit=0", "GET")), 400, "bad_request:validation");
  });

  it("unknown ids are 404 for PATCH and DELETE", async () => {
    await expectError(
      await PATCH(jsonRequest("", "PATCH", { title: "x" }), params({ id: "missing" })),
      404,
      "not_found:conversation",
    );
    await expectError(
      await DELETE(jsonRequest("", "DELETE"), params({ id: "missing" })),
      404,
      "not_found:conversation",
    );
  });
});

describe("single-user mode on loopback", () => {
  it("answers only loopback Host names, so a DNS-rebinding page cannot reach it", async () => {
    const rebound = new Request("http://127.0.0.1/api/conversations", { headers: { host: "attacker.example:3000" } });
    const response = await list(rebound);
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain("AUTH_MODE=required");
    for (const host of ["localhost:3000", "127.0.0.1:3000", "[::1]:3000"]) {
      expect((await list(new Request("http://127.0.0.1/api/conversations", { headers: { host } }))).status).toBe(200);
    }
  });

  it("still refuses cross-site writes", async () => {
    const request = new Request("http://127.0.0.1/api/conversations", {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/json" },
      body: "{}",
    });
    expect((await create(request)).status).toBe(403);
  });
});
