import { z } from "zod";
import type { ToolSpec } from "@/lib/llm/types";
import type { PromptLanguage } from "@/lib/prompts";
import { parseToolArguments } from "@/lib/util/tool-arguments";
import { coerceArguments } from "./argument-coercion";
import { type ToolOutcome, toolError } from "./outcome";
import { truncateOutcome } from "./truncate";
import type { UrlLeakGuard } from "./url-leak-guard";

/**
 * The tool registry: every call ends in a `ToolOutcome` (an unknown tool, bad arguments or an
 * exception included), sized by the truncation policy; nothing throws out but the run's abort.
 */

export interface ToolContext {
  /** The conversation the run belongs to: scopes `attachment:` ids and where fetched files are stored. */
  conversationId: string;
  signal: AbortSignal;
  /** The conversation's prompt language: tools that speak to the model localise their labels. */
  language: PromptLanguage;
  /**
   * The run's exfiltration guard: a tool asks it before fetching a URL the model chose, and the
   * registry shows it every result, so it knows what the run holds and which links it was given.
   */
  urlGuard: UrlLeakGuard;
  /** The model's call this is, when the engine said: an approval asked for it names it. */
  call?: { id: string; iteration: number };
}

/**
 * The arguments of a tool described elsewhere (an MCP server's): its JSON schema, already in the
 * shape the model is given. Only "an object" is checked here; the tool's server validates the rest.
 */
export interface JsonSchemaArguments {
  jsonSchema: Record<string, unknown>;
}

/**
 * A tool that acts outside the app (an MCP server's): what the user is shown when asked about a
 * call, and what a call needs now (docs/security.md, "Tools that act need the user's consent"). Built-in
 * tools have none.
 */
export interface ToolConsent {
  server: string;
  /** The tool's name on its server. */
  toolName: string;
  /** The tool's MCP annotations (`readOnlyHint`, `destructiveHint`…) as its server listed them. */
  annotations: Record<string, unknown>;
  /** Read at each call, so an admin's change applies to runs already going. */
  policy(): "ask" | "allow" | "deny";
  /** Before `policy` is read: brings it up to date with a change made on another instance. */
  refresh?(): Promise<void>;
}

export interface ToolDefinition<Args = unknown> {
  name: string;
  description: string;
  consent?: ToolConsent;
  /** Built-in tools: a zod schema, enforced before `execute`. */
  schema: z.ZodType<Args> | JsonSchemaArguments;
  /** Paged tools size their own results (footer included); the registry never cuts them. */
  paged: boolean;
  execute(args: Args, context: ToolContext): Promise<ToolOutcome>;
}

export function defineTool<Schema extends z.ZodType>(
  definition: Omit<ToolDefinition<z.infer<Schema>>, "schema"> & { schema: Schema },
): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`).join("; ");
}

const isJsonSchema = (schema: ToolDefinition["schema"]): schema is JsonSchemaArguments => "jsonSchema" in schema;

function parametersOf(schema: ToolDefinition["schema"]): Record<string, unknown> {
  if (isJsonSchema(schema)) return schema.jsonSchema;
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return parameters;
}

/** A tool's schema never changes, so its JSON schema is converted once, not on every run. */
const specs = new WeakMap<ToolDefinition, ToolSpec>();

function specOf(tool: ToolDefinition): ToolSpec {
  let spec = specs.get(tool);
  if (!spec) {
    spec = { name: tool.name, description: tool.description, parameters: parametersOf(tool.schema) };
    specs.set(tool, spec);
  }
  return spec;
}

export interface ExecuteOptions {
  maxResultChars: number;
}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  register(tool: ToolDefinition): this {
    if (this.tools.has(tool.name)) throw new Error(`Tool ${tool.name} is already registered`);
    this.tools.set(tool.name, tool);
    return this;
  }

  get names(): string[] {
    return [...this.tools.keys()];
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  /** The model-facing list: name, description, JSON schema of the arguments (made once per tool). */
  specs(): ToolSpec[] {
    return [...this.tools.values()].map(specOf);
  }

  /** A registry of the same tools, each as `wrap` makes it (an approval gate around those that act). */
  mapped(wrap: (tool: ToolDefinition) => ToolDefinition): ToolRegistry {
    const mapped = new ToolRegistry();
    for (const tool of this.tools.values()) mapped.register(wrap(tool));
    return mapped;
  }

  /** A registry holding only the named tools (tool selection). Unknown names are ignored. */
  filtered(names: string[]): ToolRegistry {
    const subset = new ToolRegistry();
    for (const name of names) {
      const tool = this.tools.get(name);
      if (tool && !subset.tools.has(name)) subset.register(tool);
    }
    return subset;
  }

  /**
   * Runs a tool with an object or JSON-string arguments. Unknown tools, invalid arguments and
   * exceptions are failed outcomes; every outcome is sized by the truncation policy.
   */
  async execute(name: string, args: unknown, context: ToolContext, options: ExecuteOptions): Promise<ToolOutcome> {
    const tool = this.tools.get(name);
    const outcome = tool ? await this.run(tool, args, context) : unknownTool(name, this.names);
    const sized = truncateOutcome(outcome, { maxChars: options.maxResultChars, paged: tool?.paged ?? false });
    context.urlGuard.observe(sized);
    return sized;
  }

  private async run(tool: ToolDefinition, args: unknown, context: ToolContext): Promise<ToolOutcome> {
    const parsedArgs = parseToolArguments(args);
    if (!parsedArgs.ok) return toolError("invalid_args", `Invalid arguments for ${tool.name}: ${parsedArgs.error}.`);
    const { schema } = tool;
    // Fitted to the tool's JSON schema first: lossless conversions only, else the model is told which parameter.
    const coerced = coerceArguments(parsedArgs.value, specOf(tool).parameters);
    if (!coerced.ok) return toolError("invalid_args", `Invalid arguments for ${tool.name}: ${coerced.error}.`);
    const validated = isJsonSchema(schema)
      ? { success: true as const, data: coerced.value }
      : schema.safeParse(coerced.value);
    if (!validated.success) {
      return toolError("invalid_args", `Invalid arguments for ${tool.name}: ${describeIssues(validated.error)}.`);
    }
    try {
      return await tool.execute(validated.data, context);
    } catch (error) {
      if (context.signal.aborted) throw error;
      return toolError("internal", `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

const unknownTool = (name: string, names: string[]) =>
  toolError("unknown_tool", `Unknown tool: ${name}. Available tools: ${names.join(", ") || "none"}.`);
