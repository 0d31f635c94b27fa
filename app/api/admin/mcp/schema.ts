import { z } from "zod";
import { serverNameProblem } from "@/lib/mcp/config-file";
import { toolApprovalPolicies } from "@/lib/mcp/types";

/** Bodies of the MCP admin routes (docs/api.md, "MCP servers"). */

export const serverName = z.string().superRefine((name, context) => {
  const problem = serverNameProblem(name);
  if (problem) context.addIssue({ code: "custom", message: problem });
});

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,199}$/, "must be an environment variable name");
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,200}$/, "must be an HTTP header name");
const secretValue = z.string().max(8000);
const headerValue = secretValue.regex(/^[^\r\n\0]*$/, "must be one line");

const limited = <T extends z.ZodType>(record: T, max: number) =>
  record.refine((value) => Object.keys(value as object).length <= max, `at most ${max} entries`);

const stdio = <V extends z.ZodType>(value: V) =>
  z.strictObject({
    type: z.literal("stdio"),
    command: z.string().trim().min(1, "give the command").max(1000),
    args: z.array(z.string().max(2000)).max(100).default([]),
    env: limited(z.record(envName, value), 100).default({}),
    cwd: z.string().trim().min(1).max(1000).optional(),
  });

const http = <V extends z.ZodType>(value: V) =>
  z.strictObject({
    type: z.literal("http"),
    url: z
      .string()
      .trim()
      .max(2000)
      .url("must be an http(s) URL")
      .refine((url) => /^https?:\/\//i.test(url), "must be an http(s) URL"),
    headers: limited(z.record(headerName, value), 50).default({}),
  });

/** A new server's transport: every env and header value given. */
export const transportBody = z.discriminatedUnion("type", [stdio(secretValue), http(headerValue)]);

/** An edited transport: `null` keeps the saved value of that env variable or header. */
export const transportPatchBody = z.discriminatedUnion("type", [
  stdio(secretValue.nullable()),
  http(headerValue.nullable()),
]);

const policy = z.enum(toolApprovalPolicies);

/** Which tools run at once, ask the user or are refused: `default` for the server (null: by annotations), per tool. */
const toolApproval = z.strictObject({
  default: policy.nullable(),
  tools: limited(z.record(z.string().min(1).max(200), policy), 1000),
});

export const addServerBody = z.strictObject({
  name: serverName,
  enabled: z.boolean().default(true),
  transport: transportBody,
});

export const updateServerBody = z
  .strictObject({
    enabled: z.boolean().optional(),
    transport: transportPatchBody.optional(),
    disabledTools: z.array(z.string().min(1).max(200)).max(1000).optional(),
    toolApproval: toolApproval.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, "give enabled, transport, disabledTools or toolApproval");

/** A pasted `{"mcpServers": {...}}` document, as text; `replace` names stored servers it may overwrite. */
export const importBody = z.strictObject({
  config: z.string().min(1, "paste the JSON").max(60_000),
  replace: z.array(serverName).max(100).default([]),
});
