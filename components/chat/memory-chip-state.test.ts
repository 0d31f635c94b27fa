import { describe, expect, it } from "vitest";
import { chipState, type KeptMemory } from "./memory-chip-state";

/** What an answer's memory chip shows, from the server's memories and dismissals (docs/architecture.md, "Projects and memory"). */

const saved = { status: "saved", id: "m1", text: "I work in metric units." } as const;
const proposed = { status: "proposed", text: "My team uses PostgreSQL 16." } as const;
const memory = (over: Partial<KeptMemory>): KeptMemory => ({
  id: "m9",
  text: proposed.text,
  runId: null,
  messageId: null,
  ...over,
});
const live = { runId: "r1", messageId: null };
const stored = { runId: "r1", messageId: "a1" };

describe("chipState", () => {
  it("a saved memory is saved while the lists load and while it is listed, undone once it is not", () => {
    expect(chipState(saved, { kept: null, dismissed: null, ...live })).toEqual({ kind: "saved", id: "m1" });
    expect(chipState(saved, { kept: [memory({ id: "m1" })], dismissed: null, ...live })).toEqual({
      kind: "saved",
      id: "m1",
    });
    expect(chipState(saved, { kept: [], dismissed: null, ...stored })).toEqual({ kind: "undone" });
  });

  it("a proposal saved while its answer streamed (a memory naming its run) is saved, live and once stored alike", () => {
    const kept = [memory({ id: "m2", runId: "r1" })];
    expect(chipState(proposed, { kept, dismissed: [], ...live })).toEqual({ kind: "saved", id: "m2" });
    expect(chipState(proposed, { kept, dismissed: [], ...stored })).toEqual({ kind: "saved", id: "m2" });
  });

  it("a proposal saved from its stored answer before memories named their run is saved by its answer", () => {
    const kept = [memory({ id: "m3", messageId: "a1" })];
    expect(chipState(proposed, { kept, dismissed: [], ...stored })).toEqual({ kind: "saved", id: "m3" });
  });

  it("the same text remembered from another run or answer does not save this proposal", () => {
    const kept = [memory({ runId: "r2", messageId: "a2" }), memory({})];
    expect(chipState(proposed, { kept, dismissed: [], ...stored })).toEqual({ kind: "proposed" });
  });

  it("a dismissed proposal is dismissed, live and once stored; one not dismissed is proposed", () => {
    expect(chipState(proposed, { kept: [], dismissed: [proposed.text], ...live })).toEqual({ kind: "dismissed" });
    expect(chipState(proposed, { kept: [], dismissed: [proposed.text], ...stored })).toEqual({ kind: "dismissed" });
    expect(chipState(proposed, { kept: [], dismissed: ["Another text."], ...stored })).toEqual({ kind: "proposed" });
    expect(chipState(proposed, { kept: null, dismissed: null, ...live })).toEqual({ kind: "proposed" });
  });
});
