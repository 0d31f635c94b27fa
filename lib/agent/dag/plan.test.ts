import { describe, expect, it } from "vitest";
import { checkPlan } from "./plan";

const TOOLS = ["web_search", "scrape_url"];
const check = (steps: unknown, takenIds?: Set<string>, maxSteps = 10) =>
  checkPlan(steps, { maxSteps, toolNames: TOOLS, takenIds });

describe("plan checks", () => {
  it("drops dependencies on steps the plan does not have", () => {
    const result = check([
      { id: "a", task: "find", dependencies: ["ghost"] },
      { id: "b", task: "compare", dependencies: ["a", "nope", "a"] },
    ]);
    expect(result.ok && result.steps.map((step) => step.dependencies)).toEqual([[], ["a"]]);
  });

  it("renames duplicate ids, and a dependency on the id means its first step", () => {
    const result = check([
      { id: "s1", task: "one", dependencies: [] },
      { id: "s1", task: "two", dependencies: [] },
      { id: "s3", task: "three", dependencies: ["s1"] },
    ]);
    expect(result.ok && result.steps.map((step) => [step.id, step.dependencies])).toEqual([
      ["s1", []],
      ["s1_2", []],
      ["s3", ["s1"]],
    ]);
  });

  it("renames ids an earlier round used, keeping the round's own dependencies", () => {
    const result = check(
      [
        { id: "s1", task: "again", dependencies: [] },
        { id: "s2", task: "then", dependencies: ["s1"] },
      ],
      new Set(["s1", "s1_2"]),
    );
    expect(result.ok && result.steps.map((step) => [step.id, step.dependencies])).toEqual([
      ["s1_3", []],
      ["s2", ["s1_3"]],
    ]);
  });

  it("refuses a cycle, naming the steps on it", () => {
    const result = check([
      { id: "a", task: "x", dependencies: ["c"] },
      { id: "b", task: "y", dependencies: ["a"] },
      { id: "c", task: "z", dependencies: ["b"] },
      { id: "d", task: "free", dependencies: [] },
    ]);
    expect(result).toEqual({ ok: false, problem: { kind: "cycle", steps: ["a", "b", "c"] } });
  });

  it("refuses a step that depends on itself as a cycle", () => {
    expect(check([{ id: "a", task: "x", dependencies: ["a"] }])).toEqual({
      ok: false,
      problem: { kind: "cycle", steps: ["a"] },
    });
  });

  it("refuses a plan with no usable step", () => {
    expect(check([])).toEqual({ ok: false, problem: { kind: "empty" } });
    expect(check([null, 3, "text", { id: "a", task: "   " }])).toEqual({ ok: false, problem: { kind: "empty" } });
    expect(check({ steps: [] })).toEqual({ ok: false, problem: { kind: "empty" } });
  });

  it("keeps at most DAG_MAX_STEPS steps, dropping dependencies on the rest", () => {
    const steps = Array.from({ length: 12 }, (_, i) => ({ id: `s${i}`, task: `t${i}`, dependencies: ["s11"] }));
    const result = check(steps, undefined, 3);
    expect(result.ok && result.steps.map((step) => [step.id, step.dependencies])).toEqual([
      ["s0", []],
      ["s1", []],
      ["s2", []],
    ]);
  });

  it("forgets tool hints that are not tools and model hints that are not roles", () => {
    const result = check([
      { id: "a", task: "x", tool_hint: "rm_rf", model_hint: "huge" },
      { id: "b", task: "y", tool_hint: "scrape_url", model_hint: "reasoning" },
    ]);
    expect(result.ok && result.steps.map((step) => [step.tool_hint, step.model_hint])).toEqual([
      [null, null],
      ["scrape_url", "reasoning"],
    ]);
  });

  it("gives steps without an id one, and cuts over-long ids and tasks", () => {
    const result = check([{ task: "x" }, { id: "é".repeat(500), task: "t".repeat(10_000) }]);
    expect(result.ok && result.steps[0]?.id).toBe("s1");
    expect(result.ok && result.steps[1]?.id.length).toBe(40);
    expect(result.ok && result.steps[1]?.task.length).toBe(2000);
  });
});
