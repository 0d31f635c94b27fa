import { describe, expect, it } from "vitest";
import { elapsedMessage } from "./use-elapsed";

describe("durations on tool cards and answer footers", () => {
  it("shows whole milliseconds under a second", () => {
    expect(elapsedMessage(72.4)).toEqual({ key: "milliseconds", values: { value: 72 } });
  });

  it("shows one decimal under ten seconds and whole seconds under a minute", () => {
    expect(elapsedMessage(1_540)).toEqual({ key: "seconds", values: { value: 1.5 } });
    expect(elapsedMessage(42_400)).toEqual({ key: "seconds", values: { value: 42 } });
  });

  it("shows minutes and seconds from one minute on", () => {
    expect(elapsedMessage(125_000)).toEqual({ key: "minutes", values: { minutes: 2, seconds: 5 } });
  });
});
