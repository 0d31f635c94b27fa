/**
 * The browser's request bodies are the routes' own schemas, and its answers the server's types
 * where the server has one. The type half is checked by
 * `tsc --noEmit` (part of `npm run lint`): a body type written again by hand beside its route — a
 * `mode` with two of the route's four values, a field the route no longer has — stops compiling
 * here. The runtime half sends one body through each call and parses what went over the wire with
 * the route's schema, so a call that builds its body wrongly fails too.
 */
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from "vitest";
import type { z } from "zod";
import { addServerBody, importBody, updateServerBody } from "@/app/api/admin/mcp/schema";
import { adminSettingsBody, createUserBody, modelBody, updateUserBody } from "@/app/api/admin/schema";
import { chatBody } from "@/app/api/chat/schema";
import {
  approvalBody,
  createConversationBody,
  exportQuery,
  interruptBody,
  listConversationsQuery,
  selectBranchBody,
  updateConversationBody,
} from "@/app/api/conversations/schema";
import { presetBody, presetPatch } from "@/app/api/presets/schema";
import { settingsBody } from "@/app/api/settings/schema";
import type { EffectiveSettings, updateSettings } from "@/lib/admin-settings";
import { loginBody, passwordChangeBody, signupBody } from "@/lib/auth/account-rules";
import type { stopChat } from "@/lib/chat/chat-service";
import type { checkMessageCitations } from "@/lib/chat/citation-check";
import { api, type ChatRequest, exportUrl, newServerTransport } from "@/lib/client/api";
import type { getConversationDetail, listFileSummaries } from "@/lib/db/conversation-detail";
import type { listConversations } from "@/lib/db/conversations";
import type { HeldInterruptView } from "@/lib/db/interrupts";
import type { importServers } from "@/lib/db/mcp-servers";
import type { checkOllama } from "@/lib/llm/ollama-status";

type In<S extends z.ZodType> = z.input<S>;
type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
type Arg<F extends (...args: never[]) => unknown, I extends number> = Parameters<F>[I];

/** Every field of a body type across the members of a union, with the values any member gives it (`undefined` aside). */
type Fields<T> = {
  [K in T extends unknown ? keyof T : never]: T extends unknown
    ? K extends keyof T
      ? Exclude<T[K], undefined>
      : never
    : never;
};

const limits = { maxInstructionsChars: 1000, maxNumCtx: 8192 };

describe("the client's request bodies", () => {
  it("are typed from each route's schema, field for field", () => {
    expectTypeOf<Arg<typeof api.createConversation, 0>>().toEqualTypeOf<In<typeof createConversationBody>>();
    expectTypeOf<Arg<typeof api.updateConversation, 1>>().toEqualTypeOf<
      In<ReturnType<typeof updateConversationBody>>
    >();
    expectTypeOf<Arg<typeof api.listConversations, 0>["q"]>().toEqualTypeOf<In<typeof listConversationsQuery>["q"]>();
    expectTypeOf<Arg<typeof api.selectBranch, 1>>().toEqualTypeOf<In<typeof selectBranchBody>["messageId"]>();
    expectTypeOf<Arg<typeof exportUrl, 1>>().toEqualTypeOf<NonNullable<In<typeof exportQuery>["format"]>>();
    expectTypeOf<Arg<typeof api.decideApproval, 2>>().toEqualTypeOf<In<typeof approvalBody>["decision"]>();
    expectTypeOf<Arg<typeof api.interrupt, 1>>().toEqualTypeOf<In<typeof interruptBody>["message"]>();
    expectTypeOf<Arg<typeof api.login, 0>>().toEqualTypeOf<In<typeof loginBody>>();
    expectTypeOf<Arg<typeof api.signup, 0>>().toEqualTypeOf<In<typeof signupBody>>();
    expectTypeOf<Arg<typeof api.changePassword, 0>>().toEqualTypeOf<In<typeof passwordChangeBody>>();
    expectTypeOf<Arg<typeof api.addUser, 0>>().toEqualTypeOf<In<typeof createUserBody>>();
    expectTypeOf<Arg<typeof api.updateUser, 1>>().toEqualTypeOf<In<typeof updateUserBody>>();
    expectTypeOf<Arg<typeof api.setSignupOpen, 0>>().toEqualTypeOf<In<typeof adminSettingsBody>["signupOpen"]>();
    expectTypeOf<Arg<typeof api.createPreset, 0>>().toEqualTypeOf<In<ReturnType<typeof presetBody>>>();
    expectTypeOf<Arg<typeof api.updatePreset, 1>>().toEqualTypeOf<In<ReturnType<typeof presetPatch>>>();
    expectTypeOf<Arg<typeof api.updateSettings, 0>>().toEqualTypeOf<In<typeof settingsBody>>();
    expectTypeOf<Arg<typeof api.addMcpServer, 0>>().toEqualTypeOf<In<typeof addServerBody>>();
    expectTypeOf<Arg<typeof api.updateMcpServer, 1>>().toEqualTypeOf<In<typeof updateServerBody>>();
    expectTypeOf<Arg<typeof api.importMcpServers, 0>>().toEqualTypeOf<In<typeof importBody>>();
    for (const call of [api.pullModel, api.deleteModel, api.unloadModel, api.modelDetails]) {
      expectTypeOf<Arg<typeof call, 0>>().toEqualTypeOf<In<typeof modelBody>["model"]>();
    }
    expectTypeOf<Arg<typeof api.pullModel, 2>>().toEqualTypeOf<In<typeof modelBody>["server"]>();
    expectTypeOf<Arg<typeof api.unloadModel, 1>>().toEqualTypeOf<In<typeof modelBody>["server"]>();
  });

  it("give a chat turn every field and value the chat route takes, every mode included", () => {
    expectTypeOf<Arg<typeof api.chat, 0>>().toEqualTypeOf<ChatRequest>();
    expectTypeOf<ChatRequest>().toExtend<In<typeof chatBody>>();
    expectTypeOf<Fields<ChatRequest>>().toEqualTypeOf<Fields<In<typeof chatBody>>>();
    expectTypeOf<Fields<ChatRequest>["mode"]>().toEqualTypeOf<"auto" | "native" | "json" | "dag" | "research">();
  });

  it("say in the type that a turn asks a question or regenerates an answer, not both", () => {
    const ask: ChatRequest = { conversationId: "c1", message: "hi", mode: "native" };
    const regenerate: ChatRequest = { conversationId: "c1", regenerate: "m1", mode: "json" };
    // @ts-expect-error neither a question nor an answer to write again
    const neither: ChatRequest = { conversationId: "c1" };
    // @ts-expect-error a regeneration answers the stored question: it sends no files
    const regenerateWithFiles: ChatRequest = { conversationId: "c1", regenerate: "m1", attachmentIds: ["f1"] };
    for (const body of [ask, regenerate, neither, regenerateWithFiles]) expect(body.conversationId).toBe("c1");
  });
});

describe("the client's answers", () => {
  it("are the server's types where the server has one", () => {
    expectTypeOf<Answer<typeof api.listConversations>>().toEqualTypeOf<Answer<typeof listConversations>>();
    expectTypeOf<Answer<typeof api.conversation>>().toEqualTypeOf<
      Answer<typeof getConversationDetail> & { interrupts: HeldInterruptView[] }
    >();
    expectTypeOf<Answer<typeof api.conversation>["files"]>().toEqualTypeOf<Answer<typeof listFileSummaries>>();
    expectTypeOf<Answer<typeof api.checkCitations>>().toEqualTypeOf<Answer<typeof checkMessageCitations>>();
    expectTypeOf<Answer<typeof api.stop>>().toEqualTypeOf<{ stopping: true } & ReturnType<typeof stopChat>>();
    expectTypeOf<Answer<typeof api.updateSettings>>().toEqualTypeOf<Answer<typeof updateSettings>>();
    expectTypeOf<Answer<typeof api.settings>["roles"]>().toEqualTypeOf<EffectiveSettings["roles"]>();
    expectTypeOf<Answer<typeof api.settings>["limits"]>().toEqualTypeOf<EffectiveSettings["limits"]>();
    expectTypeOf<Answer<typeof api.settings>["ollama"]>().toEqualTypeOf<Answer<typeof checkOllama>>();
    expectTypeOf<Answer<typeof api.importMcpServers>>().toEqualTypeOf<Answer<typeof importServers>>();
  });
});

describe("what the client sends", () => {
  const sent: { url: string; init: RequestInit }[] = [];
  beforeEach(() => {
    sent.length = 0;
    vi.stubGlobal("fetch", async (url: string, init: RequestInit = {}) => {
      sent.push({ url, init });
      return new Response("{}", { status: 200, headers: { "Content-Type": "application/json" } });
    });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });
  const lastBody = () => JSON.parse(String(sent.at(-1)?.init.body));
  const lastQuery = () => Object.fromEntries(new URL(sent.at(-1)?.url ?? "", "http://127.0.0.1").searchParams);

  const bodies: [name: string, send: () => Promise<unknown>, schema: z.ZodType][] = [
    ["createConversation", () => api.createConversation({ title: "t", presetId: null }), createConversationBody],
    [
      "updateConversation",
      () => api.updateConversation("c1", { settings: { temperature: 0.5 }, pinned: true }),
      updateConversationBody(limits),
    ],
    ["selectBranch", () => api.selectBranch("c1", "m1"), selectBranchBody],
    ["decideApproval", () => api.decideApproval("c1", "a1", "always"), approvalBody],
    ["interrupt", () => api.interrupt("c1", "also this"), interruptBody],
    ["login", () => api.login({ username: "ann", password: "secret-pass" }), loginBody],
    ["signup", () => api.signup({ username: "ann", password: "secret-pass", setupToken: "t" }), signupBody],
    [
      "changePassword",
      () => api.changePassword({ currentPassword: "old-pass", newPassword: "new-password" }),
      passwordChangeBody,
    ],
    ["addUser", () => api.addUser({ username: "bob", password: "secret-pass", role: "user" }), createUserBody],
    ["updateUser", () => api.updateUser("u1", { disabled: true }), updateUserBody],
    ["setSignupOpen", () => api.setSignupOpen(true), adminSettingsBody],
    ["createPreset", () => api.createPreset({ name: "p", model: null, isDefault: true }), presetBody(limits)],
    ["updatePreset", () => api.updatePreset("p1", { name: "q" }), presetPatch(limits)],
    ["updateSettings", () => api.updateSettings({ roles: { fast: "m" }, searchBackend: "searxng" }), settingsBody],
    [
      "addMcpServer",
      () => api.addMcpServer({ name: "docs", transport: { type: "http", url: "http://127.0.0.1:9/mcp" } }),
      addServerBody,
    ],
    ["updateMcpServer", () => api.updateMcpServer("docs", { enabled: false }), updateServerBody],
    ["importMcpServers", () => api.importMcpServers({ config: '{"mcpServers":{}}' }), importBody],
    ["pullModel", () => api.pullModel("qwen3:8b", new AbortController().signal, "http://127.0.0.1:11434"), modelBody],
    ["unloadModel", () => api.unloadModel("qwen3:8b"), modelBody],
    ...(["auto", "native", "json", "dag"] as const).map((mode): [string, () => Promise<unknown>, z.ZodType] => [
      `chat in ${mode} mode`,
      () => api.chat({ conversationId: "c1", message: "hi", mode, attachmentIds: ["f1"] }),
      chatBody,
    ]),
    ["chat regenerating", () => api.chat({ conversationId: "c1", regenerate: "m1" }), chatBody],
  ];

  it.each(bodies)("%s: a body its route's schema accepts", async (_name, send, schema) => {
    await send();
    expect(schema.safeParse(lastBody()).error?.issues).toBeUndefined();
  });

  it("asks for one model, its deletion and an export with query values their routes' schemas accept", async () => {
    await api.modelDetails("qwen3:8b");
    expect(modelBody.safeParse(lastQuery()).error?.issues).toBeUndefined();
    await api.deleteModel("qwen3:8b", "http://127.0.0.1:11434");
    expect(modelBody.parse(lastQuery())).toEqual({ model: "qwen3:8b", server: "http://127.0.0.1:11434" });
    await api.listConversations({ q: "pdf", cursor: "x", archived: true });
    expect(listConversationsQuery.parse(lastQuery())).toEqual({ q: "pdf", cursor: "x", archived: true });
    const exported = Object.fromEntries(new URL(exportUrl("c1", "md", true), "http://127.0.0.1").searchParams);
    expect(exportQuery.parse(exported)).toEqual({ format: "md", files: "1" });
  });

  it("adds a new MCP server without the 'keep the saved value' nulls an edit form uses: it has none saved", () => {
    const transport = newServerTransport({ type: "stdio", command: "mcp", env: { KEY: "v", KEPT: null } });
    expect(transport).toEqual({ type: "stdio", command: "mcp", env: { KEY: "v" } });
    expect(addServerBody.safeParse({ name: "docs", transport }).success).toBe(true);
    const http = newServerTransport({ type: "http", url: "http://127.0.0.1:9/mcp", headers: { A: null } });
    expect(http).toEqual({ type: "http", url: "http://127.0.0.1:9/mcp", headers: {} });
  });
});
