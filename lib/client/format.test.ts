import { describe, expect, it } from "vitest";
import { dateGroup, formatBytes, formatElapsed, formatTokens } from "./format";

describe("display formatters", () => {
  it("shows small token counts exactly and large ones compactly", () => {
    expect(formatTokens(999)).toBe("999");
    expect(formatTokens(12_345)).toBe("12.3K");
  });

  it("shows elapsed time in ms, seconds, or minutes and seconds", () => {
    expect(formatElapsed(72)).toBe("72 ms");
    expect(formatElapsed(1_540)).toBe("1.5 s");
    expect(formatElapsed(42_000)).toBe("42 s");
    expect(formatElapsed(125_000)).toBe("2 min 5 s");
  });

  it("shows sizes in binary units", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(2_040_000_000)).toBe("1.9 GB");
  });

  it("puts conversations in sidebar sections by the local day of their last update", () => {
    const now = new Date(2025, 5, 15, 9, 0).getTime();
    const at = (day: number, hour = 12) => new Date(2025, 5, day, hour).getTime();
    expect(dateGroup(new Date(2025, 5, 15, 0, 1).getTime(), now)).toBe("Today");
    expect(dateGroup(at(14, 23), now)).toBe("Yesterday");
    expect(dateGroup(at(10), now)).toBe("Previous 7 days");
    expect(dateGroup(at(1), now)).toBe("Previous 30 days");
    expect(dateGroup(new Date(2024, 0, 1).getTime(), now)).toBe("Older");
  });
});
