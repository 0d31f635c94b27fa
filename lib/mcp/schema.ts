/**
 * An MCP tool's input schema in the shape Ollama's tool format takes: an object at the top with
 * `properties` and `required`, every property with a `type` (a name or a list of names) and plain
 * keywords. Ollama decodes tools into fixed structs, so anything else is either dropped or a 400:
 * `$ref`s are inlined from `$defs`/`definitions` (a cycle or a dangling ref becomes a bare object),
 * `oneOf`/`anyOf` collapse to one schema, `allOf` is merged, `const` becomes an `enum`.
 *
 * A server is not trusted to send a schema that is cheap to read (docs/security.md, "MCP servers"):
 * each `$ref` is expanded once and reused, the walk stops after `MAX_SCHEMA_STEPS`, and a result
 * longer than `MAX_SCHEMA_CHARS` is refused. A refused schema is a reason, and its tool is dropped.
 */

type Schema = Record<string, unknown>;

/** Deeper nesting is cut to a bare typed node: tool arguments are rarely deeper, and the model would not cope. */
const MAX_DEPTH = 8;
const MAX_DESCRIPTION = 500;
/**
 * Schema nodes visited (each combinator, reference and property) before a schema is refused. Real
 * tools take tens to a few hundred; a few kilobytes of references that fan out reach millions.
 */
export const MAX_SCHEMA_STEPS = 10_000;
/** The normalised schema as JSON: it is sent to Ollama with every request, so one tool may not crowd out the rest. */
export const MAX_SCHEMA_CHARS = 32_000;

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
/** Keywords kept as they are when their value has the right JSON type. */
const NUMBER_KEYWORDS = ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"] as const;

const isSchema = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A reference's target with its combinators flattened, and every reference that took. */
interface Expanded {
  schema: Schema;
  refs: ReadonlySet<string>;
}

/** What one schema's walk shares: the steps taken so far and the references already expanded. */
interface Budget {
  steps: number;
  expanded: Map<string, Expanded>;
}

interface Walk {
  root: Schema;
  /** The `$ref`s being expanded on the way down: one seen again is a cycle. */
  expanding: ReadonlySet<string>;
  depth: number;
  budget: Budget;
}

class TooComplex extends Error {}

function step(budget: Budget): void {
  budget.steps++;
  if (budget.steps > MAX_SCHEMA_STEPS) throw new TooComplex();
}

export type InputSchemaResult =
  | { ok: true; schema: Schema; steps: number }
  | { ok: false; reason: string; steps: number };

/** The schema as Ollama takes it, or why it is refused; `steps` is the work it took. */
export function readInputSchema(schema: unknown): InputSchemaResult {
  const root = isSchema(schema) ? schema : {};
  const budget: Budget = { steps: 0, expanded: new Map() };
  let top: Schema;
  try {
    top = normalise(root, { root, expanding: new Set(), depth: 0, budget });
  } catch (error) {
    if (!(error instanceof TooComplex)) throw error;
    const reason = `Its input schema takes more than ${MAX_SCHEMA_STEPS} steps to read (nested or repeated references).`;
    return { ok: false, reason, steps: budget.steps };
  }
  const normalised = {
    ...top,
    type: "object",
    properties: isSchema(top.properties) ? top.properties : {},
    required: Array.isArray(top.required) ? top.required : [],
  };
  const chars = JSON.stringify(normalised).length;
  if (chars > MAX_SCHEMA_CHARS) {
    const reason = `Its input schema is ${chars} characters once references are expanded, over ${MAX_SCHEMA_CHARS}.`;
    return { ok: false, reason, steps: budget.steps };
  }
  return { ok: true, schema: normalised, steps: budget.steps };
}

function resolveRef(ref: string, root: Schema): Schema | null {
  if (!ref.startsWith("#/")) return null;
  let node: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    const key = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
    node = isSchema(node) ? node[key] : undefined;
  }
  return isSchema(node) ? node : null;
}

const isNullType = (schema: unknown) => isSchema(schema) && schema.type === "null";

/** `anyOf`/`oneOf` as one schema: enums of constants merged, a nullable X read as X, otherwise the first choice. */
function collapseChoice(choices: unknown[]): Schema {
  const options = choices.filter((choice) => isSchema(choice) && !isNullType(choice)) as Schema[];
  if (options.length === 0) return { type: "string" };
  const constants = options.map((option) => ("const" in option ? [option.const] : option.enum));
  if (constants.every(Array.isArray)) return { enum: constants.flat() };
  const simple = options.every((option) => typeof option.type === "string" && !option.properties && !option.items);
  if (simple) {
    const types = [...new Set(options.map((option) => option.type as string))];
    return types.length === 1 ? { ...options[0] } : { type: types };
  }
  return options[0] ?? { type: "string" };
}

/** `allOf` as one schema: properties and required merged, other keywords from the first part that has them. */
function mergeAll(parts: unknown[]): Schema {
  const merged: Schema = {};
  const properties: Schema = {};
  const required: unknown[] = [];
  for (const part of parts.filter(isSchema)) {
    for (const [key, value] of Object.entries(part)) {
      if (key === "properties" && isSchema(value)) Object.assign(properties, value);
      else if (key === "required" && Array.isArray(value)) required.push(...value);
      else if (!(key in merged)) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.length > 0) merged.required = required;
  return merged;
}

const disjoint = (a: ReadonlySet<string>, b: ReadonlySet<string>) => ![...a].some((ref) => b.has(ref));

/**
 * A reference's target, flattened. Expanded once per schema and reused, unless a reference it took
 * is already being expanded on this path (it then reads differently here: the cycle is cut).
 */
function expand(ref: string, walk: Walk): Expanded {
  const known = walk.budget.expanded.get(ref);
  if (known && disjoint(known.refs, walk.expanding)) return known;
  const target = walk.expanding.has(ref) ? null : resolveRef(ref, walk.root);
  const expanding = new Set(walk.expanding).add(ref);
  const flat = target ? flatten(target, { ...walk, expanding }) : { schema: { type: "object" }, walk };
  const refs = new Set([ref, ...[...flat.walk.expanding].filter((each) => !walk.expanding.has(each))]);
  const expanded = { schema: flat.schema, refs };
  if (!known && disjoint(refs, walk.expanding)) walk.budget.expanded.set(ref, expanded);
  return expanded;
}

/** The schema with its combinators and references replaced, before its keywords are cleaned. */
function flatten(node: Schema, walk: Walk): { schema: Schema; walk: Walk } {
  step(walk.budget);
  const { $ref, anyOf, oneOf, allOf, ...rest } = node;
  if (typeof $ref === "string") {
    const { schema, refs } = expand($ref, walk);
    const expanding = new Set([...walk.expanding, ...refs]);
    // A sibling `description` says more about this use than the definition does.
    return flatten({ ...schema, ...rest }, { ...walk, expanding });
  }
  if (Array.isArray(allOf)) {
    const parts = allOf.map((part) => (isSchema(part) ? flatten(part, walk).schema : part));
    return flatten({ ...mergeAll(parts), ...rest }, walk);
  }
  const choices = Array.isArray(anyOf) ? anyOf : Array.isArray(oneOf) ? oneOf : null;
  if (choices) return flatten({ ...collapseChoice(choices), ...rest }, walk);
  return { schema: node, walk };
}

function inferType(schema: Schema): string | string[] {
  const { type } = schema;
  if (typeof type === "string" && JSON_TYPES.has(type)) return type;
  if (Array.isArray(type)) {
    const types = type.filter((entry): entry is string => typeof entry === "string" && JSON_TYPES.has(entry));
    if (types.length === 1) return types[0] as string;
    if (types.length > 1) return types;
  }
  if (isSchema(schema.properties)) return "object";
  if (schema.items !== undefined) return "array";
  const first = "const" in schema ? schema.const : Array.isArray(schema.enum) ? schema.enum[0] : undefined;
  if (typeof first === "number") return "number";
  if (typeof first === "boolean") return "boolean";
  return "string";
}

function normalise(node: Schema, outer: Walk): Schema {
  step(outer.budget);
  const { schema, walk } = flatten(node, outer);
  const type = inferType(schema);
  const out: Schema = { type };
  if (typeof schema.description === "string" && schema.description.trim()) {
    out.description = schema.description.trim().slice(0, MAX_DESCRIPTION);
  }
  if ("const" in schema) out.enum = [schema.const];
  else if (Array.isArray(schema.enum)) out.enum = schema.enum;
  if (typeof schema.format === "string") out.format = schema.format;
  if (typeof schema.pattern === "string") out.pattern = schema.pattern;
  if (schema.default !== undefined) out.default = schema.default;
  for (const keyword of NUMBER_KEYWORDS) {
    if (typeof schema[keyword] === "number") out[keyword] = schema[keyword];
  }
  if (walk.depth >= MAX_DEPTH) return out;
  const inner: Walk = { ...walk, depth: walk.depth + 1 };
  if (isSchema(schema.properties)) {
    const properties = Object.fromEntries(
      Object.entries(schema.properties).map(([key, value]) => [key, normalise(isSchema(value) ? value : {}, inner)]),
    );
    out.properties = properties;
    if (Array.isArray(schema.required)) {
      out.required = [...new Set(schema.required)].filter(
        (key): key is string => typeof key === "string" && key in properties,
      );
    }
  }
  // A tuple's positions read as a list of its first kind.
  const items = Array.isArray(schema.items) ? schema.items[0] : schema.items;
  if (isSchema(items)) out.items = normalise(items, inner);
  return out;
}
