import "server-only";
import { asc, eq, inArray } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import { type McpServerConfig, type McpToolApproval, type McpTransportConfig, noToolApproval } from "@/lib/mcp/types";
import type { Db } from "./client";
import { mcpServers, type StoredMcpServer } from "./schema";
import { bumpRevision } from "./settings-revision";

/**
 * MCP servers configured on the settings page (docs/tools.md, "MCP tools"). Env and header
 * values are secrets: they are stored here and given to the hub, never sent back to the browser, so
 * an edit names a kept value by `null` instead of repeating it. Every change writes a new settings
 * revision in its transaction: that is how the other instances learn of it (lib/db/settings-revision.ts).
 */

/** A transport as an edit sends it: `null` for an env or header value keeps the saved one. */
export type McpTransportPatch =
  | (Omit<Extract<McpTransportConfig, { type: "stdio" }>, "env"> & { env: Record<string, string | null> })
  | (Omit<Extract<McpTransportConfig, { type: "http" }>, "headers"> & { headers: Record<string, string | null> });

const toConfig = (row: StoredMcpServer): McpServerConfig => ({
  name: row.name,
  enabled: row.enabled,
  transport: row.transport,
  disabledTools: row.disabledTools,
  toolApproval: row.toolApproval,
  origin: "settings",
});

export async function listStoredServers(db: Db): Promise<McpServerConfig[]> {
  return (await db.select().from(mcpServers).orderBy(asc(mcpServers.name))).map(toConfig);
}

export async function findStoredServer(db: Db, { name }: { name: string }): Promise<McpServerConfig | undefined> {
  const [row] = await db.select().from(mcpServers).where(eq(mcpServers.name, name)).limit(1);
  return row ? toConfig(row) : undefined;
}

async function getStoredServer(db: Db, { name }: { name: string }): Promise<McpServerConfig> {
  const server = await findStoredServer(db, { name });
  if (!server) throw serverNotFound(name);
  return server;
}

/** The 404 for a server name that is not configured. */
export function serverNotFound(name: string): AppError {
  return new AppError("not_found:mcp_server", `No MCP server named ${name} is configured.`, { details: { name } });
}

export async function addServer(
  db: Db,
  { name, enabled, transport }: { name: string; enabled: boolean; transport: McpTransportConfig },
): Promise<McpServerConfig> {
  const now = Date.now();
  await db.transaction(async (tx) => {
    const taken = await sameNames(tx, [name]);
    if (taken.length > 0) {
      throw new AppError("conflict:mcp_server_exists", `An MCP server named ${taken[0]} already exists.`, {
        details: { existing: taken },
      });
    }
    await tx.insert(mcpServers).values({
      name,
      enabled,
      transport,
      disabledTools: [],
      toolApproval: noToolApproval(),
      createdAt: now,
      updatedAt: now,
    });
    await bumpRevision(tx);
  });
  return getStoredServer(db, { name });
}

/** Stored names equal to one of `names` but for case: a model would read them as one namespace. */
async function sameNames(db: Db, names: readonly string[]): Promise<string[]> {
  const wanted = new Set(names.map((name) => name.toLowerCase()));
  const rows = await db.select({ name: mcpServers.name }).from(mcpServers);
  return rows.map((row) => row.name).filter((name) => wanted.has(name.toLowerCase()));
}

/** Fills the `null` (kept) values of an edited transport from the saved one; a value never saved is refused. */
export function resolveTransport(saved: McpTransportConfig, patch: McpTransportPatch): McpTransportConfig {
  const keep = (values: Record<string, string | null>, savedValues: Record<string, string>, what: string) =>
    Object.fromEntries(
      Object.entries(values).map(([key, value]) => {
        if (value !== null) return [key, value];
        const kept = savedValues[key];
        if (kept === undefined) {
          throw new AppError("bad_request:mcp_secret", `The ${what} ${key} has no saved value to keep: give one.`, {
            details: { key },
          });
        }
        return [key, kept];
      }),
    );
  if (patch.type === "stdio") {
    return { ...patch, env: keep(patch.env, saved.type === "stdio" ? saved.env : {}, "environment variable") };
  }
  return { ...patch, headers: keep(patch.headers, saved.type === "http" ? saved.headers : {}, "header") };
}

export async function updateServer(
  db: Db,
  {
    name,
    enabled,
    transport,
    disabledTools,
    toolApproval,
  }: {
    name: string;
    enabled?: boolean;
    transport?: McpTransportPatch;
    disabledTools?: string[];
    toolApproval?: McpToolApproval;
  },
): Promise<McpServerConfig> {
  const saved = await getStoredServer(db, { name });
  const changes: Partial<StoredMcpServer> = { updatedAt: Date.now() };
  if (enabled !== undefined) changes.enabled = enabled;
  if (transport !== undefined) changes.transport = resolveTransport(saved.transport, transport);
  if (disabledTools !== undefined) changes.disabledTools = [...new Set(disabledTools)];
  if (toolApproval !== undefined) changes.toolApproval = toolApproval;
  await db.transaction(async (tx) => {
    await tx.update(mcpServers).set(changes).where(eq(mcpServers.name, name));
    await bumpRevision(tx);
  });
  return getStoredServer(db, { name });
}

export async function removeServer(db: Db, { name }: { name: string }): Promise<void> {
  await db.transaction(async (tx) => {
    const removed = await tx.delete(mcpServers).where(eq(mcpServers.name, name)).returning({ name: mcpServers.name });
    if (removed.length === 0) throw serverNotFound(name);
    await bumpRevision(tx);
  });
}

/**
 * Stores imported servers in one transaction. A name already stored (in any case) is refused
 * unless `replace` names it (the whole import then stores nothing); a replaced server keeps nothing
 * of the old one.
 */
export async function importServers(
  db: Db,
  { servers, replace }: { servers: McpServerConfig[]; replace: readonly string[] },
): Promise<{ added: string[]; replaced: string[] }> {
  const names = servers.map((server) => server.name);
  return db.transaction(async (tx) => {
    const existing = await sameNames(tx, names);
    const unconfirmed = existing.filter((name) => !replace.includes(name));
    if (unconfirmed.length > 0) {
      throw new AppError(
        "conflict:mcp_server_exists",
        `Already configured: ${unconfirmed.join(", ")}. Import again choosing to replace them, or rename them.`,
        { details: { existing: unconfirmed } },
      );
    }
    if (existing.length > 0) await tx.delete(mcpServers).where(inArray(mcpServers.name, existing));
    const now = Date.now();
    for (const { name, enabled, transport, disabledTools, toolApproval } of servers) {
      await tx
        .insert(mcpServers)
        .values({ name, enabled, transport, disabledTools, toolApproval, createdAt: now, updatedAt: now });
    }
    await bumpRevision(tx);
    const replaced = new Set(existing.map((name) => name.toLowerCase()));
    return {
      added: names.filter((name) => !replaced.has(name.toLowerCase())),
      replaced: names.filter((name) => replaced.has(name.toLowerCase())),
    };
  });
}
