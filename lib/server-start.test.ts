import { afterEach, describe, expect, it, vi } from "vitest";
import { resetConfigForTests } from "./config";
import { startServer } from "./server-start";

describe("server start (SPEC §3)", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    resetConfigForTests();
  });

  it("a bad variable stops the server with one line naming it", () => {
    vi.stubEnv("MAX_TOOL_ROUNDS", "many");
    resetConfigForTests();
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: string) => errors.push(line));
    const exit = vi.spyOn(process, "exit").mockImplementation(((code?: number) => {
      throw new Error(`exit ${code}`);
    }) as typeof process.exit);
    expect(() => startServer()).toThrow("exit 1");
    expect(exit).toHaveBeenCalledWith(1);
    expect(errors).toEqual(['Invalid configuration: MAX_TOOL_ROUNDS must be a positive whole number (got "many")']);
  });
});
