import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { createConversation } from "@/lib/db/conversations";
import { parseConfig } from "@/lib/env-config";
import { createBuiltinRegistry } from "@/lib/tools/builtin";
import { renderObservation, type ToolOutcome } from "@/lib/tools/outcome";
import type { ToolContext, ToolRegistry } from "@/lib/tools/registry";
import type { ToolServices } from "@/lib/tools/services";
import { UrlLeakGuard } from "@/lib/tools/url-leak-guard";
import { type FakeWeb, startFakeWeb } from "./fake-web";
import { tempDb } from "./temp-db";
import { toolServices } from "./tool-services";

/**
 * The built-in tools against a fake web server on loopback (allowed through FETCH_ALLOW_PRIVATE,
 * exactly as a deployment would), a fresh database and a fresh secret, per test file.
 */
export function setupToolEnv(env: Record<string, string> = {}) {
  let web: FakeWeb;
  let db: Awaited<ReturnType<typeof tempDb>>;
  const ctx = {
    web: () => web,
    db: () => db.db,
    services: undefined as unknown as ToolServices,
    registry: undefined as unknown as ToolRegistry,
    conversationId: "",
    otherConversationId: "",
    context: (overrides: Partial<ToolContext> = {}): ToolContext => ({
      conversationId: ctx.conversationId,
      signal: new AbortController().signal,
      language: "en",
      urlGuard: new UrlLeakGuard(ctx.services.limits),
      ...overrides,
    }),
    /** Runs a tool through the registry, as the agent does, and returns its outcome. */
    outcome: (
      name: string,
      args: unknown,
      overrides: Partial<ToolContext> = {},
      registry?: ToolRegistry,
    ): Promise<ToolOutcome> =>
      (registry ?? ctx.registry).execute(name, args, ctx.context(overrides), {
        maxResultChars: ctx.services.limits.MAX_TOOL_RESULT_CHARS,
      }),
    /** Runs a tool through the registry and returns the observation the model reads. */
    run: async (
      name: string,
      args: unknown,
      overrides: Partial<ToolContext> = {},
      registry?: ToolRegistry,
    ): Promise<string> => renderObservation(await ctx.outcome(name, args, overrides, registry)),
  };
  beforeAll(async () => {
    web = await startFakeWeb();
  });
  afterAll(() => web.close());
  beforeEach(async () => {
    db = await tempDb();
    const config = parseConfig({
      FETCH_ALLOW_PRIVATE: web.hostPort,
      DUCKDUCKGO_URL: `${web.url}/html/`,
      SEARXNG_URL: `${web.url}/searx/`,
      ...env,
    });
    ctx.services = toolServices(config, db.db);
    ctx.registry = createBuiltinRegistry(ctx.services);
    ctx.conversationId = (await createConversation(db.db, { ownerId: null, title: "mine" })).id;
    ctx.otherConversationId = (await createConversation(db.db, { ownerId: null, title: "theirs" })).id;
    web.routes.clear();
    web.requests.length = 0;
  });
  afterEach(() => db.cleanup());
  return ctx;
}
