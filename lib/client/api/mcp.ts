/** An admin's MCP servers: adding, changing, testing, removing and importing them. */
import type { z } from "zod";
import type { addServerBody, importBody, updateServerBody } from "@/app/api/admin/mcp/schema";
import type { importServers } from "@/lib/db/mcp-servers";
import type { McpServersView, McpServerView } from "../types";
import { jsonBody, request } from "./request";

/** A new server: every env and header value given. */
export type AddMcpServerRequest = z.input<typeof addServerBody>;
/** A change: `null` env or header values keep the saved ones. */
export type UpdateMcpServerRequest = z.input<typeof updateServerBody>;
/** A pasted `{"mcpServers": {...}}` document; `replace` names stored servers it may overwrite. */
export type ImportMcpServersRequest = z.input<typeof importBody>;

type KeptValues = Record<string, string | null>;
const withoutKept = (values: KeptValues): Record<string, string> =>
  Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== null));

/**
 * A transport as the server form edits it, for a new server: there is no saved value to keep, so
 * an env variable or header that says "keep" (`null`) has nothing behind it and is left out.
 */
export function newServerTransport(
  transport: UpdateMcpServerRequest["transport"] & {},
): AddMcpServerRequest["transport"] {
  return transport.type === "stdio"
    ? { ...transport, env: withoutKept(transport.env ?? {}) }
    : { ...transport, headers: withoutKept(transport.headers ?? {}) };
}

const serverPath = (name: string) => `/api/admin/mcp/servers/${encodeURIComponent(name)}`;

export const mcpApi = {
  mcpServers: () => request<McpServersView>("/api/admin/mcp/servers", { cache: "no-store" }),

  addMcpServer: (body: AddMcpServerRequest) =>
    request<{ server: McpServerView }>("/api/admin/mcp/servers", jsonBody("POST", body)),

  updateMcpServer: (name: string, body: UpdateMcpServerRequest) =>
    request<{ server: McpServerView }>(serverPath(name), jsonBody("PATCH", body)),

  removeMcpServer: (name: string) => request<void>(serverPath(name), { method: "DELETE" }),

  /** "Test": connects the server now; its state and tools. */
  connectMcpServer: (name: string) =>
    request<{ server: McpServerView }>(`${serverPath(name)}/connect`, { method: "POST" }),

  importMcpServers: (body: ImportMcpServersRequest) =>
    request<Awaited<ReturnType<typeof importServers>>>("/api/admin/mcp/import", jsonBody("POST", body)),
};
