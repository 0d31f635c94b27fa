import { describe, expect, it } from "vitest";
import { MAX_SCHEMA_CHARS, MAX_SCHEMA_STEPS, readInputSchema } from "./schema";

/** The normalised schema of one that is read. */
function normaliseInputSchema(schema: unknown) {
  const read = readInputSchema(schema);
  if (!read.ok) throw new Error(read.reason);
  return read.schema;
}

describe("readInputSchema", () => {
  it("drops $schema and keeps a plain object schema as it is", () => {
    expect(
      normaliseInputSchema({
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { q: { type: "string", description: "Query", minLength: 1 } },
        required: ["q"],
        additionalProperties: false,
      }),
    ).toEqual({
      type: "object",
      properties: { q: { type: "string", description: "Query", minLength: 1 } },
      required: ["q"],
    });
  });

  it("fills a missing type, properties and required at the top; a non-object top becomes an object", () => {
    const empty = { type: "object", properties: {}, required: [] };
    expect(normaliseInputSchema(undefined)).toEqual(empty);
    expect(normaliseInputSchema({})).toEqual(empty);
    expect(normaliseInputSchema({ type: "string" })).toEqual(empty);
    expect(normaliseInputSchema("nonsense")).toEqual(empty);
    expect(normaliseInputSchema({ properties: { a: {} } })).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
      required: [],
    });
  });

  it("gives every property a type, inferred from its keywords when missing", () => {
    const { properties } = normaliseInputSchema({
      properties: {
        nested: { properties: { x: { type: "integer" } } },
        list: { items: { type: "number" } },
        flag: { enum: [true, false] },
        count: { enum: [1, 2] },
        weird: { type: 42 },
        multi: { type: ["string", "null", "bogus"] },
      },
    });
    expect(properties).toEqual({
      nested: { type: "object", properties: { x: { type: "integer" } } },
      list: { type: "array", items: { type: "number" } },
      flag: { type: "boolean", enum: [true, false] },
      count: { type: "number", enum: [1, 2] },
      weird: { type: "string" },
      multi: { type: ["string", "null"] },
    });
  });

  it("inlines $ref from $defs and definitions, with the use's description winning", () => {
    expect(
      normaliseInputSchema({
        type: "object",
        $defs: { Point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
        definitions: { Unit: { type: "string", enum: ["m", "km"] } },
        properties: {
          at: { $ref: "#/$defs/Point", description: "Where" },
          unit: { $ref: "#/definitions/Unit" },
        },
      }),
    ).toEqual({
      type: "object",
      properties: {
        at: { type: "object", description: "Where", properties: { x: { type: "number" } }, required: ["x"] },
        unit: { type: "string", enum: ["m", "km"] },
      },
      required: [],
    });
  });

  it("a recursive or dangling $ref becomes a bare object instead of looping", () => {
    const schema = normaliseInputSchema({
      $defs: { Node: { type: "object", properties: { child: { $ref: "#/$defs/Node" } } } },
      properties: {
        root: { $ref: "#/$defs/Node" },
        lost: { $ref: "#/$defs/Missing" },
        remote: { $ref: "https://x/s.json" },
      },
    });
    expect(schema.properties).toEqual({
      root: { type: "object", properties: { child: { type: "object" } } },
      lost: { type: "object" },
      remote: { type: "object" },
    });
    expect(JSON.stringify(schema)).not.toContain("$ref");
  });

  it("simplifies anyOf/oneOf: nullable X is X, simple types merge, constants become an enum, objects take the first", () => {
    const { properties } = normaliseInputSchema({
      properties: {
        nullable: { anyOf: [{ type: "string", description: "inner" }, { type: "null" }], description: "outer" },
        either: { oneOf: [{ type: "string" }, { type: "number" }] },
        choice: { oneOf: [{ const: "a" }, { const: "b", description: "B" }] },
        shape: {
          anyOf: [
            { type: "object", properties: { r: { type: "number" } } },
            { type: "object", properties: { w: {} } },
          ],
        },
        onlyNull: { anyOf: [{ type: "null" }] },
      },
    });
    expect(properties).toEqual({
      nullable: { type: "string", description: "outer" },
      either: { type: ["string", "number"] },
      choice: { type: "string", enum: ["a", "b"] },
      shape: { type: "object", properties: { r: { type: "number" } } },
      onlyNull: { type: "string" },
    });
  });

  it("merges allOf parts' properties and required, references included", () => {
    expect(
      normaliseInputSchema({
        $defs: { Base: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
        allOf: [{ $ref: "#/$defs/Base" }, { properties: { name: { type: "string" } }, required: ["name"] }],
      }),
    ).toEqual({
      type: "object",
      properties: { id: { type: "string" }, name: { type: "string" } },
      required: ["id", "name"],
    });
  });

  it("keeps only required names that are properties, once; const becomes an enum; tuples read as lists", () => {
    expect(
      normaliseInputSchema({
        properties: { a: { const: 3 }, pair: { type: "array", items: [{ type: "string" }, { type: "number" }] } },
        required: ["a", "a", "ghost", 7],
      }),
    ).toEqual({
      type: "object",
      properties: { a: { type: "number", enum: [3] }, pair: { type: "array", items: { type: "string" } } },
      required: ["a"],
    });
  });

  it("cuts nesting deeper than eight levels and long descriptions, and drops non-string descriptions", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 20; i++) deep = { type: "object", properties: { next: deep } };
    const text = JSON.stringify(normaliseInputSchema(deep));
    expect(text.match(/"next"/g)?.length).toBe(8);
    const { properties } = normaliseInputSchema({
      properties: {
        long: { type: "string", description: "d".repeat(2000) },
        odd: { type: "string", description: { x: 1 } },
      },
    });
    expect((properties as Record<string, { description?: string }>).long?.description).toHaveLength(500);
    expect((properties as Record<string, object>).odd).toEqual({ type: "string" });
  });
});

/** `levels` definitions, each referring to the next `fanOut` times through `at` (allOf parts or properties). */
function referenceBomb(levels: number, fanOut: number, at: "allOf" | "properties"): Record<string, unknown> {
  const $defs: Record<string, unknown> = { [`d${levels}`]: { type: "object", properties: { q: { type: "string" } } } };
  for (let level = levels - 1; level >= 0; level--) {
    const refs = Array.from({ length: fanOut }, () => ({ $ref: `#/$defs/d${level + 1}` }));
    $defs[`d${level}`] =
      at === "allOf"
        ? { allOf: refs }
        : { type: "object", properties: Object.fromEntries(refs.map((ref, i) => [`p${i}`, ref])) };
  }
  return { $defs, type: "object", properties: { root: { $ref: "#/$defs/d0" } } };
}

describe("a hostile MCP server's schema is read in bounded steps", () => {
  it("a 2.6 KB schema of 40 nested allOf references (2^40 expansions written out) is read in a few hundred steps: each reference is expanded once", () => {
    const bomb = referenceBomb(40, 2, "allOf");
    expect(JSON.stringify(bomb).length).toBeLessThan(2700);
    const read = readInputSchema(bomb);
    expect(read).toMatchObject({ ok: true });
    expect(read.steps).toBeLessThan(500);
    expect(read.ok && read.schema.properties).toEqual({
      root: { type: "object", properties: { q: { type: "string" } } },
    });
  });

  it(`a schema whose references fan out into more than MAX_SCHEMA_STEPS (${MAX_SCHEMA_STEPS}) nodes is refused with its reason, having taken no more`, () => {
    // 1.3 KB; 4^8 properties once written out.
    const bomb = referenceBomb(8, 4, "properties");
    expect(JSON.stringify(bomb).length).toBeLessThan(1400);
    const read = readInputSchema(bomb);
    expect(read).toMatchObject({ ok: false, reason: expect.stringContaining(`more than ${MAX_SCHEMA_STEPS} steps`) });
    expect(read.steps).toBe(MAX_SCHEMA_STEPS + 1);
  });

  it(`a schema longer than MAX_SCHEMA_CHARS (${MAX_SCHEMA_CHARS}) once expanded is refused with its reason`, () => {
    const properties = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`field_${i}`, { type: "string", description: "d".repeat(400) }]),
    );
    const read = readInputSchema({ type: "object", properties });
    expect(read).toMatchObject({ ok: false, reason: expect.stringContaining(`over ${MAX_SCHEMA_CHARS}`) });
  });

  it("a reference used in sibling places is expanded in each, not mistaken for a cycle", () => {
    const read = readInputSchema({
      $defs: { Point: { type: "object", properties: { x: { type: "number" } } } },
      properties: { from: { $ref: "#/$defs/Point" }, to: { $ref: "#/$defs/Point" } },
    });
    const point = { type: "object", properties: { x: { type: "number" } } };
    expect(read.ok && read.schema.properties).toEqual({ from: point, to: point });
  });
});
