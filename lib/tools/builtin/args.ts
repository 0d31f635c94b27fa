import { z } from "zod";

/** Argument schemas shared by the built-in tools. Small models send numbers as strings; both are accepted. */

export const optionalCount = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^\s*-?\d+\s*$/)
      .transform(Number),
  ])
  .nullish()
  .describe("optional; omit to use the default");

/** The seed's rule: a missing, zero or negative limit means the default. */
export function limitOr(value: number | null | undefined, fallback: number, cap = Number.POSITIVE_INFINITY): number {
  return value && value > 0 ? Math.min(Math.floor(value), cap) : fallback;
}

export const continueFrom = z
  .string()
  .nullish()
  .describe("The next_token from the previous result of this tool, copied exactly. Omit on the first call.");
