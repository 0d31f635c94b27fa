import { describe, expect, it } from "vitest";
import { decideToolCalling } from "./tool-calling-mode";

const canCall = { tool_call: true };
const cannotCall = { tool_call: false };

describe("the tool-calling mode", () => {
  it("is native when the model can call tools and the request leaves it to the app", () => {
    expect(decideToolCalling(undefined, canCall)).toEqual({ mode: "native" });
    expect(decideToolCalling("auto", canCall)).toEqual({ mode: "native" });
  });

  it("is JSON when the model cannot call tools", () => {
    expect(decideToolCalling("auto", cannotCall)).toEqual({ mode: "json" });
  });

  it("is JSON when the request asks for it, even from a model that can call tools", () => {
    expect(decideToolCalling("json", canCall)).toEqual({ mode: "json" });
  });

  it("refuses native mode for a model that cannot call tools instead of falling back quietly", () => {
    expect(decideToolCalling("native", cannotCall)).toMatchObject({ refusal: expect.stringContaining("native") });
    expect(decideToolCalling("native", canCall)).toEqual({ mode: "native" });
  });
});
