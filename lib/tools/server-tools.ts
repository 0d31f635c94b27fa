import "server-only";
import { getSettings } from "@/lib/admin-settings";
import type { Db } from "@/lib/db/client";
import { scopeHasFiles } from "@/lib/db/library";
import { getConfig } from "@/lib/env-config";
import { createFileStore } from "@/lib/files/file-store";
import { fileLimits } from "@/lib/files/quota";
import { createLibrarySearch } from "@/lib/library/library-search";
import { getServerMcp } from "@/lib/mcp/server-hub";
import { activeToolGroups } from "@/lib/mcp/tool-groups";
import { createBuiltinRegistry } from "./builtin";
import { createSearchFiles } from "./builtin/search-files";
import { type PageTextCache, pageTextCacheFor } from "./page-text-cache";
import { ToolRegistry } from "./registry";
import { fetchPublic } from "./safe-http";
import { getServerSecret } from "./server-secret";
import type { ToolServices } from "./services";

let pageCache: PageTextCache | undefined;

/** The built-in tools wired to this server's configuration, database and secret. */
export async function createServerToolServices(db: Db): Promise<ToolServices> {
  const config = getConfig();
  const settings = await getSettings(db);
  const maxBytes = config.MAX_FETCH_MB * 1024 * 1024;
  // One for the process: continuations come in later runs too.
  pageCache ??= pageTextCacheFor(config);
  return {
    // The search backend may be chosen on the settings page.
    limits: { ...config, SEARCH_BACKEND: settings.searchBackend.value },
    secret: getServerSecret(),
    fetch: (url, options) =>
      fetchPublic(url, {
        ...options,
        maxBytes: options.maxBytes ?? maxBytes,
        allowPrivate: config.FETCH_ALLOW_PRIVATE,
      }),
    files: createFileStore(db, fileLimits(config)),
    library: createLibrarySearch(db, config),
    pageCache,
  };
}

export async function createServerToolRegistry(db: Db): Promise<ToolRegistry> {
  return createBuiltinRegistry(await createServerToolServices(db));
}

/**
 * One run's tools: the built-in ones unless the conversation switched "web" off — with
 * `search_files` when the conversation's library scope holds a file — and the tools of
 * the enabled MCP servers it did not switch off (connected now if need be; a server that cannot
 * connect adds none, and is named in `unavailable`; why is on the settings page, for admins).
 * Reading the hub reads the settings revision: what an admin switched off on any instance is off.
 */
export async function createRunToolRegistry(
  db: Db,
  {
    conversationId,
    disabledToolGroups,
    signal,
  }: { conversationId: string; disabledToolGroups: readonly string[]; signal: AbortSignal },
): Promise<{ registry: ToolRegistry; unavailable: string[] }> {
  const mcp = await getServerMcp(db);
  const enabled = mcp.servers.filter((server) => server.enabled).map((server) => server.name);
  const groups = activeToolGroups(disabledToolGroups, enabled);
  let registry = new ToolRegistry();
  if (groups.web) {
    const services = await createServerToolServices(db);
    registry = createBuiltinRegistry(services);
    if (await scopeHasFiles(db, { conversationId })) registry.register(createSearchFiles(services));
  }
  if (groups.servers.length === 0) return { registry, unavailable: [] };
  // What an admin changed on another instance since the run began — a server or tool switched off, a
  // tool's approval — holds before the approval gate reads the policy and again before the call.
  const sync = async () => {
    await getServerMcp(db);
  };
  for (const tool of await mcp.hub.tools(groups.servers, signal)) {
    registry.register({
      ...tool,
      ...(tool.consent ? { consent: { ...tool.consent, refresh: sync } } : {}),
      execute: async (args, context) => {
        await sync();
        return tool.execute(args, context);
      },
    });
  }
  const wanted = new Set(groups.servers);
  const unavailable = mcp.hub
    .states()
    .filter((state) => wanted.has(state.name) && state.status === "error")
    .map((state) => state.name);
  return { registry, unavailable };
}
