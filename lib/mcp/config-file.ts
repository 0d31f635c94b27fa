import { type McpServerConfig, type McpToolApproval, type ToolApprovalPolicy, toolApprovalPolicies } from "./types";

/**
 * The `{"mcpServers": {...}}` format Claude Desktop and Cursor use, read into server configs: the
 * `MCP_CONFIG` file and a pasted import. Each server is checked on its own, so one bad entry names
 * itself and leaves the others usable. Fields other tools add (`autoApprove`, `timeout`…) are ignored;
 * ours is `toolApproval` (`{"default": "ask", "tools": {"read_file": "allow"}}`, docs/security.md).
 */

export interface McpConfigProblem {
  /** The server's name as written; null for a problem with the whole document. */
  server: string | null;
  message: string;
}

export interface McpConfigParse {
  servers: McpServerConfig[];
  problems: McpConfigProblem[];
}

export const MAX_SERVER_NAME = 32;

/**
 * A server name as a tool namespace: characters other than letters, digits, `_` and `-` become `_`,
 * runs of `_` one `_` (`__` separates the server from the tool), none at either end.
 */
export function normaliseServerName(name: string): string {
  return name
    .trim()
    .replace(/[^A-Za-z0-9_-]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "");
}

/** Why a (normalised) server name cannot be used, or null when it can. */
export function serverNameProblem(name: string): string | null {
  if (!name) return "The name must contain a letter or digit.";
  if (name.length > MAX_SERVER_NAME) return `The name is longer than ${MAX_SERVER_NAME} characters.`;
  if (!/^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$/.test(name)) {
    return "The name may contain only letters, digits, '-' and single '_' between them.";
  }
  return null;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A map of strings (env, headers), or the reason it is not one. */
function stringMap(value: unknown, field: string): Record<string, string> | string {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) return `"${field}" must be an object of strings.`;
  const bad = Object.entries(value).find(([, entry]) => typeof entry !== "string");
  if (bad) return `"${field}.${bad[0]}" must be a string.`;
  return value as Record<string, string>;
}

function stringList(value: unknown, field: string): string[] | string {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== "string")) {
    return `"${field}" must be a list of strings.`;
  }
  return value;
}

const isPolicy = (value: unknown): value is ToolApprovalPolicy =>
  toolApprovalPolicies.includes(value as ToolApprovalPolicy);

/** An entry's `toolApproval`, or the reason it is not one. */
function toolApproval(value: unknown): McpToolApproval | string {
  if (value === undefined || value === null) return { default: null, tools: {} };
  const policies = toolApprovalPolicies.join(", ");
  if (!isRecord(value)) return `"toolApproval" must be an object with "default" and "tools".`;
  if (value.default !== undefined && value.default !== null && !isPolicy(value.default)) {
    return `"toolApproval.default" must be one of ${policies}.`;
  }
  const tools = value.tools ?? {};
  if (!isRecord(tools)) return `"toolApproval.tools" must be an object of tool names to ${policies}.`;
  const bad = Object.entries(tools).find(([, policy]) => !isPolicy(policy));
  if (bad) return `"toolApproval.tools.${bad[0]}" must be one of ${policies}.`;
  return {
    default: isPolicy(value.default) ? value.default : null,
    tools: tools as Record<string, ToolApprovalPolicy>,
  };
}

const HTTP_TYPES = new Set(["http", "streamable-http", "streamableHttp", "sse"]);

/** One entry of `mcpServers`, or the sentence saying what is wrong with it. */
function parseServer(name: string, entry: unknown, origin: McpServerConfig["origin"]): McpServerConfig | string {
  if (!isRecord(entry)) return "The entry must be an object with a command or a url.";
  const { command, url, type } = entry;
  if (type !== undefined && type !== "stdio" && !(typeof type === "string" && HTTP_TYPES.has(type))) {
    return `"type" must be stdio, http, streamable-http or sse (got ${JSON.stringify(type)}).`;
  }
  if (command !== undefined && url !== undefined) return 'Give either "command" or "url", not both.';
  const disabledTools = stringList(entry.disabledTools, "disabledTools");
  if (typeof disabledTools === "string") return disabledTools;
  const approval = toolApproval(entry.toolApproval);
  if (typeof approval === "string") return approval;
  const base = { name, enabled: entry.disabled !== true, disabledTools, toolApproval: approval, origin };

  if (url !== undefined || (type !== undefined && type !== "stdio")) {
    if (typeof url !== "string" || !url.trim()) return 'An http or sse server needs a "url".';
    let parsed: URL;
    try {
      parsed = new URL(url.trim());
    } catch {
      return `"url" is not a valid URL: ${url}`;
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `"url" must be http(s) (got ${url}).`;
    const headers = stringMap(entry.headers, "headers");
    if (typeof headers === "string") return headers;
    return { ...base, transport: { type: "http", url: parsed.href, headers } };
  }

  if (typeof command !== "string" || !command.trim()) return 'A stdio server needs a "command" (or give a "url").';
  const args = stringList(entry.args, "args");
  if (typeof args === "string") return args;
  const env = stringMap(entry.env, "env");
  if (typeof env === "string") return env;
  if (entry.cwd !== undefined && (typeof entry.cwd !== "string" || !entry.cwd.trim())) {
    return '"cwd" must be a directory path.';
  }
  const cwd = typeof entry.cwd === "string" ? { cwd: entry.cwd } : {};
  return { ...base, transport: { type: "stdio", command: command.trim(), args, env, ...cwd } };
}

/** Reads a config document (its text, or the value already parsed from JSON). */
export function parseMcpConfig(document: unknown, origin: McpServerConfig["origin"]): McpConfigParse {
  let value = document;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch (error) {
      return { servers: [], problems: [{ server: null, message: `Not valid JSON: ${(error as Error).message}` }] };
    }
  }
  if (!isRecord(value) || !isRecord(value.mcpServers)) {
    return { servers: [], problems: [{ server: null, message: 'Expected an object with "mcpServers": {…}.' }] };
  }
  const servers: McpServerConfig[] = [];
  const problems: McpConfigProblem[] = [];
  const taken = new Map<string, string>();
  for (const [written, entry] of Object.entries(value.mcpServers)) {
    const name = normaliseServerName(written);
    const problem = (message: string) => problems.push({ server: written, message });
    const nameProblem = serverNameProblem(name);
    if (nameProblem) {
      problem(nameProblem);
      continue;
    }
    // Names differing only in case would read as one namespace to a model.
    const earlier = taken.get(name.toLowerCase());
    if (earlier !== undefined) {
      problem(`The name "${name}" is already used by "${earlier}".`);
      continue;
    }
    const parsed = parseServer(name, entry, origin);
    if (typeof parsed === "string") {
      problem(parsed);
      continue;
    }
    taken.set(name.toLowerCase(), written);
    servers.push(parsed);
  }
  return { servers, problems };
}
