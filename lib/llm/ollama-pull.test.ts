import { describe, expect, it } from "vitest";
import { PullTracker, pullError } from "./ollama-pull";

const A = `sha256:${"a".repeat(64)}`;
const B = `sha256:${"b".repeat(64)}`;

/** A tracker on a clock the test moves. */
function tracked() {
  let clock = 0;
  const tracker = new PullTracker("m", () => clock);
  return { tracker, at: (ms: number) => (clock = ms) };
}

describe("PullTracker", () => {
  it("sums the layers seen so far, each at its latest progress", () => {
    const { tracker } = tracked();
    tracker.next({ status: "pulling aaaaaaaaaaaa", digest: A, total: 1000, completed: 200 });
    tracker.next({ status: "pulling aaaaaaaaaaaa", digest: A, total: 1000, completed: 1000 });
    expect(tracker.next({ status: "pulling bbbbbbbbbbbb", digest: B, total: 50, completed: 10 })).toMatchObject({
      type: "progress",
      layers: [
        { digest: A, total: 1000, completed: 1000 },
        { digest: B, total: 50, completed: 10 },
      ],
      completed: 1010,
      total: 1050,
    });
  });

  it("measures the speed over this pull's own bytes: a resumed or cached layer is no burst of speed", () => {
    const { tracker, at } = tracked();
    at(0);
    // Resumed at 5 GB: those bytes were downloaded by an earlier pull.
    expect(tracker.next({ digest: A, total: 9e9, completed: 5e9 })).toMatchObject({ bytesPerSecond: null });
    at(1000);
    expect(tracker.next({ digest: A, total: 9e9, completed: 5e9 + 2e6 })).toMatchObject({ bytesPerSecond: 2e6 });
    at(2000);
    // A cached layer arrives whole.
    expect(tracker.next({ digest: B, total: 7e6, completed: 7e6 })).toMatchObject({ bytesPerSecond: 1e6 });
  });

  it("forgets samples older than its window, so the speed follows the download", () => {
    const { tracker, at } = tracked();
    at(0);
    tracker.next({ digest: A, total: 1e9, completed: 0 });
    at(1000);
    tracker.next({ digest: A, total: 1e9, completed: 10e6 });
    at(10_000);
    tracker.next({ digest: A, total: 1e9, completed: 11e6 });
    at(11_000);
    expect(tracker.next({ digest: A, total: 1e9, completed: 12e6 })).toMatchObject({ bytesPerSecond: 1e6 });
  });

  it("passes phases through as status, success as success and an error line as a coded error with its details", () => {
    const { tracker } = tracked();
    expect(tracker.next({ status: "verifying sha256 digest" })).toEqual({
      type: "status",
      status: "verifying sha256 digest",
    });
    expect(tracker.next({ status: "success" })).toEqual({ type: "success", model: "m" });
    // With the details the browser words it from (docs/architecture.md, "Errors in the user's language").
    expect(tracker.next({ error: "pull model manifest: file does not exist" })).toMatchObject({
      type: "error",
      code: "not_found:registry_model",
      details: { model: "m", ollama: "pull model manifest: file does not exist" },
    });
  });
});

describe("pullError", () => {
  it("names an unknown model, a full disk and an unreachable registry apart, keeping Ollama's words", () => {
    const unknown = pullError("nope:1b", "pull model manifest: file does not exist");
    expect([unknown.code, unknown.message]).toEqual(["not_found:registry_model", expect.stringContaining("'nope:1b'")]);
    const full = pullError("m", "write /x/sha256-1-partial: no space left on device");
    expect([full.code, full.message]).toEqual(["upstream:disk_full", expect.stringContaining("no space left")]);
    const offline = pullError(
      "m",
      'pull model manifest: Get "https://registry.ollama.ai/v2/library/m/manifests/latest": dial tcp: lookup registry.ollama.ai: no such host',
    );
    expect([offline.code, offline.retryable]).toEqual(["upstream:registry_unreachable", true]);
    expect(pullError("m", "something else").code).toBe("upstream:ollama");
  });
});
