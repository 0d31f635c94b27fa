import { describe, expect, it } from "vitest";
import { keepAliveValue } from "./keep-alive";

describe("keepAliveValue", () => {
  it("sends seconds as a number and a Go duration as a string; anything else is refused", () => {
    expect(["300", "-1", "0", "2.5"].map(keepAliveValue)).toEqual([300, -1, 0, 2.5]);
    expect(["5m", "1h30m", "-1m", "250ms", " 10m "].map(keepAliveValue)).toEqual([
      "5m",
      "1h30m",
      "-1m",
      "250ms",
      "10m",
    ]);
    expect(["", "5 minutes", "1d", "m", "forever", "--1", "5m5", "1e3", "５m"].map(keepAliveValue)).toEqual(
      Array(9).fill(undefined),
    );
  });
});
