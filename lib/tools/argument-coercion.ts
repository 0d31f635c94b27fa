/**
 * Arguments fitted to a tool's JSON schema before it runs: a value of the wrong type is converted
 * only when nothing is lost (`"5"` → 5 for a number, `"true"` → true, a JSON string holding the
 * array or object wanted); anything else is an error naming the parameter, and
 * the tool is not called. Small models write numbers as strings; MCP servers would get them as such.
 */

type Schema = Record<string, unknown>;
export type Coerced = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

const NUMBER = /^\s*-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function typesOf(schema: Schema): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((type): type is string => typeof type === "string");
  return [];
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    default:
      return true;
  }
}

/** The value as `type` when the conversion loses nothing, else undefined. */
function convert(value: unknown, type: string): unknown {
  if (typeof value === "string") {
    const text = value.trim();
    if ((type === "number" || type === "integer") && NUMBER.test(text)) {
      const number = Number(text);
      return hasType(number, type) ? number : undefined;
    }
    if (type === "boolean" && /^(true|false)$/i.test(text)) return text.toLowerCase() === "true";
    if (type === "array" || type === "object") {
      try {
        const parsed = JSON.parse(text) as unknown;
        return hasType(parsed, type) ? parsed : undefined;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

const describeValue = (value: unknown) =>
  typeof value === "string"
    ? JSON.stringify(value)
    : Array.isArray(value)
      ? "an array"
      : value === null
        ? "null"
        : typeof value;

type Step = { ok: true; value: unknown } | { ok: false; error: string };

function coerceValue(value: unknown, schema: Schema, path: string): Step {
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) {
    const exact = branches.find((branch) => typesOf(branch).some((type) => hasType(value, type)));
    for (const branch of exact ? [exact] : branches) {
      const step = coerceValue(value, branch, path);
      if (step.ok) return step;
    }
    return { ok: false, error: `${path}: ${describeValue(value)} matches none of its allowed types` };
  }
  const types = typesOf(schema);
  let fitted: unknown = value;
  if (types.length > 0 && !types.some((type) => hasType(value, type))) {
    fitted = types.map((type) => convert(value, type)).find((converted) => converted !== undefined);
    if (fitted === undefined)
      return { ok: false, error: `${path}: expected ${types.join(" or ")}, got ${describeValue(value)}` };
  }
  if (Array.isArray(fitted) && isObject(schema.items)) {
    const items: unknown[] = [];
    for (const [index, item] of fitted.entries()) {
      const step = coerceValue(item, schema.items, `${path}[${index}]`);
      if (!step.ok) return step;
      items.push(step.value);
    }
    return { ok: true, value: items };
  }
  if (isObject(fitted) && isObject(schema.properties)) return coerceObject(fitted, schema, `${path}.`);
  return { ok: true, value: fitted };
}

function coerceObject(value: Record<string, unknown>, schema: Schema, prefix: string): Step {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const out: Record<string, unknown> = { ...value };
  for (const [key, property] of Object.entries(properties)) {
    if (!(key in value) || !isObject(property)) continue;
    const step = coerceValue(value[key], property, `${prefix}${key}`);
    if (!step.ok) return step;
    out[key] = step.value;
  }
  const required = Array.isArray(schema.required) ? schema.required : [];
  const missing = required.find((key) => typeof key === "string" && !(key in out));
  if (missing !== undefined) return { ok: false, error: `${prefix}${String(missing)}: required` };
  return { ok: true, value: out };
}

export function coerceArguments(args: Record<string, unknown>, schema: Schema): Coerced {
  const step = coerceObject(args, schema, "");
  return step.ok ? { ok: true, value: step.value as Record<string, unknown> } : step;
}
