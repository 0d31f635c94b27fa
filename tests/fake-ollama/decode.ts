// Decodes a /api/chat body the way Ollama's Go server does (encoding/json into api.ChatRequest),
// so a malformed request gets the same 400 message as from the real server.

export interface WireToolCall {
  id?: string;
  function: { index?: number; name: string; arguments: Record<string, unknown> | string };
}

export interface ChatMessage {
  role: string;
  content: string;
  thinking?: string;
  images?: string[];
  tool_calls?: WireToolCall[];
  tool_name?: string;
  tool_call_id?: string;
}

export interface ToolDefinition {
  type: string;
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export type ThinkValue = boolean | "high" | "medium" | "low";

export interface ChatRequestBody {
  model: string;
  messages?: ChatMessage[];
  tools?: ToolDefinition[];
  stream?: boolean;
  format?: unknown;
  options?: Record<string, unknown>;
  think?: ThinkValue;
  keep_alive?: string | number;
}

type GoType =
  | { k: "string" | "bool" | "int" | "any" }
  | { k: "map"; go: string }
  | { k: "slice"; go: string; elem: GoType }
  // `unmarshaler`: the Go type has its own UnmarshalJSON (api.Message decodes through an alias)
  | { k: "struct"; go: string; fields: Record<string, GoType>; unmarshaler?: boolean }
  | { k: "custom"; check: (value: unknown) => string | undefined };

const str: GoType = { k: "string" };
const bool: GoType = { k: "bool" };
const int: GoType = { k: "int" };
const anyValue: GoType = { k: "any" };

const toolCall: GoType = {
  k: "struct",
  go: "api.ToolCall",
  fields: {
    id: str,
    function: {
      k: "struct",
      go: "api.ToolCallFunction",
      fields: { index: int, name: str, arguments: { k: "map", go: "api.ToolCallFunctionArguments" } },
    },
  },
};

const message: GoType = {
  k: "struct",
  go: "api.Message",
  unmarshaler: true,
  fields: {
    role: str,
    content: str,
    thinking: str,
    images: { k: "slice", go: "[]api.ImageData", elem: { k: "custom", check: checkBase64 } },
    tool_calls: { k: "slice", go: "[]api.ToolCall", elem: toolCall },
    tool_name: str,
    tool_call_id: str,
  },
};

const tool: GoType = {
  k: "struct",
  go: "api.Tool",
  fields: {
    type: str,
    items: anyValue,
    function: {
      k: "struct",
      go: "api.ToolFunction",
      fields: {
        name: str,
        description: str,
        parameters: {
          k: "struct",
          go: "api.ToolFunctionParameters",
          fields: {
            type: str,
            required: { k: "slice", go: "[]string", elem: str },
            properties: { k: "map", go: "map[string]api.ToolProperty" },
          },
        },
      },
    },
  },
};

const chatRequest: GoType = {
  k: "struct",
  go: "api.ChatRequest",
  fields: {
    model: str,
    messages: { k: "slice", go: "[]api.Message", elem: message },
    stream: bool,
    format: anyValue,
    keep_alive: { k: "custom", check: checkDuration },
    tools: { k: "slice", go: "api.Tools", elem: tool },
    options: { k: "map", go: "map[string]interface {}" },
    think: { k: "custom", check: checkThink },
    truncate: bool,
    shift: bool,
    logprobs: bool,
    top_logprobs: int,
  },
};

export type DecodeResult = { ok: true; body: ChatRequestBody } | { ok: false; error: string };

export function decodeChatRequest(raw: string): DecodeResult {
  if (raw.trim() === "") return { ok: false, error: "missing request body" };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, error: goSyntaxError(raw) };
  }
  const error = check(value, chatRequest, { struct: undefined, path: [], frozen: false });
  if (error) return { ok: false, error };
  const body = (value ?? {}) as Partial<ChatRequestBody>;
  return { ok: true, body: { ...body, model: body.model ?? "" } };
}

interface Context {
  struct: string | undefined; // the struct named in Go's error: the innermost one the outer decoder saw
  path: string[];
  frozen: boolean; // inside a type with its own UnmarshalJSON: Go reports the outer struct
}

function check(value: unknown, type: GoType, ctx: Context): string | undefined {
  if (value === null) return undefined; // null leaves any Go value untouched
  switch (type.k) {
    case "any":
      return undefined;
    case "string":
      return typeof value === "string" ? undefined : mismatch(value, "string", ctx);
    case "bool":
      return typeof value === "boolean" ? undefined : mismatch(value, "bool", ctx);
    case "int":
      if (typeof value !== "number") return mismatch(value, "int", ctx);
      return Number.isInteger(value) ? undefined : mismatch(value, "int", ctx, `number ${value}`);
    case "map":
      return isObject(value) ? undefined : mismatch(value, type.go, ctx);
    case "custom":
      return type.check(value);
    case "slice": {
      if (!Array.isArray(value)) return mismatch(value, type.go, ctx);
      for (const item of value) {
        const error = check(item, type.elem, ctx);
        if (error) return error;
      }
      return undefined;
    }
    case "struct": {
      // Message decodes itself through `type Alias Message`, hence Go's odd type name.
      if (!isObject(value)) return mismatch(value, type.unmarshaler ? "api.Alias" : type.go, ctx);
      const structName = ctx.frozen || type.unmarshaler ? ctx.struct : type.go.replace(/^api\./, "");
      for (const [key, item] of Object.entries(value)) {
        const fieldType = type.fields[key];
        if (!fieldType) continue; // unknown fields are ignored silently
        const inner = {
          struct: structName,
          path: [...ctx.path, key],
          frozen: ctx.frozen || type.unmarshaler === true,
        };
        const error = check(item, fieldType, inner);
        if (error) return error;
      }
      return undefined;
    }
  }
}

function mismatch(value: unknown, goType: string, ctx: Context, kind = jsonKind(value)): string {
  if (ctx.struct === undefined) return `json: cannot unmarshal ${kind} into Go value of type ${goType}`;
  return `json: cannot unmarshal ${kind} into Go struct field ${ctx.struct}.${ctx.path.join(".")} of type ${goType}`;
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value; // "string" | "number" | "object"
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkThink(value: unknown): string | undefined {
  if (typeof value === "boolean") return undefined;
  if (typeof value === "string") {
    if (value === "high" || value === "medium" || value === "low") return undefined;
    return `invalid think value: ${JSON.stringify(value)} (must be "high", "medium", "low", true, or false)`;
  }
  return 'think must be a boolean or string ("high", "medium", "low", true, or false)';
}

/** Go's time.ParseDuration grammar, e.g. "5m", "1h30m", "-1", "0". */
export function parseGoDuration(text: string): number | undefined {
  if (text === "0") return 0;
  const match = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(text);
  if (!match) return undefined;
  const unitMs: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1e3, m: 6e4, h: 3.6e6 };
  let total = 0;
  for (const part of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(part[1]) * (unitMs[part[2] ?? "ms"] ?? 1);
  }
  return match[1] === "-" ? -total : total;
}

function checkDuration(value: unknown): string | undefined {
  if (typeof value === "number") return undefined;
  if (typeof value === "string") {
    if (parseGoDuration(value) !== undefined) return undefined;
    return /^[-+]?[\d.]+$/.test(value)
      ? `time: missing unit in duration ${JSON.stringify(value)}`
      : `time: invalid duration ${JSON.stringify(value)}`;
  }
  const goType = Array.isArray(value) ? "[]interface {}" : isObject(value) ? "map[string]interface {}" : "bool";
  return `unsupported duration type: '${goType}'`;
}

/** api.ImageData is []byte, so JSON carries standard base64; a data: URL fails at the colon. */
function checkBase64(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const bad = value.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0) return `illegal base64 data at input byte ${bad}`;
  const padding = value.indexOf("=");
  if (padding >= 0 && !/^={1,2}$/.test(value.slice(padding))) return `illegal base64 data at input byte ${padding}`;
  if (value.length % 4 !== 0) return `illegal base64 data at input byte ${value.length - (value.length % 4)}`;
  return undefined;
}

/** The message Go's json.Decoder gives for bytes that are not JSON (approximate offsets). */
export function goSyntaxError(raw: string): string {
  const first = raw.trimStart()[0] ?? "";
  if (!/[{["\-0-9tfn]/.test(first)) return `invalid character '${first}' looking for beginning of value`;
  return "unexpected EOF";
}
