import { describe, expect, it } from "vitest";
import { dateGroup, formatBytes } from "./format";

describe("display formatters", () => {
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
