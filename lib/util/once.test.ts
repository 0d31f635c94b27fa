import { describe, expect, it } from "vitest";
import { once } from "./once";

describe("once", () => {
  it("runs the action on the first call only", () => {
    let runs = 0;
    const release = once(() => runs++);
    release();
    release();
    expect(runs).toBe(1);
  });
});
