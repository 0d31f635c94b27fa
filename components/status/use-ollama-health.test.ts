import { describe, expect, it } from "vitest";
import { healthState } from "./use-ollama-health";

const health = (overrides: { db?: boolean; reachable?: boolean; error?: string } = {}) => ({
  ok: true,
  db: overrides.db ?? true,
  ollama: { reachable: overrides.reachable ?? true, version: "0.9.0", error: overrides.error },
});

describe("Ollama banner state", () => {
  it("says the app server is down when no health report arrives", () => {
    expect(healthState(null)).toEqual({ kind: "server-down" });
  });

  it("reports a database that is down before anything about Ollama", () => {
    expect(healthState(health({ db: false, reachable: false }))).toEqual({ kind: "db-down" });
  });

  it("passes on why Ollama is unreachable when the report says (admins only), and nothing otherwise", () => {
    expect(healthState(health({ reachable: false, error: "connect ECONNREFUSED" }))).toEqual({
      kind: "ollama-down",
      detail: "connect ECONNREFUSED",
    });
    expect(healthState(health({ reachable: false }))).toEqual({ kind: "ollama-down", detail: null });
  });

  it("is ok when the database and Ollama answer", () => {
    expect(healthState(health())).toEqual({ kind: "ok" });
  });
});
