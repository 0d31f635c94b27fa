import { describe, expect, it } from "vitest";
import type { StoredSource } from "@/lib/protocol/sources";
import { Semaphore } from "@/lib/util/semaphore";
import { scriptedLLM } from "@/tests/support/scripted-llm";
import { checkCitations } from "./check";
import { type ClaimToVerify, type Judgement, modelVerifier, type Verifier } from "./verifier";

function source(n: number, title: string, text: string): StoredSource {
  return {
    n,
    url: `https://example.com/${n}`,
    title,
    retrievedAt: 1_700_000_000_000,
    contentHash: "0".repeat(64),
    chars: text.length,
    text,
    parts: [{ start: 0, end: text.length }],
  };
}

const bridge = source(
  1,
  "Harbour Bridge",
  "The Sydney Harbour Bridge opened on 19 March 1932 after eight years of construction. It carries rail, road and foot traffic.",
);
const tower = source(2, "Eiffel Tower", "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.");

/** A verifier that answers from a function and records what it was asked. */
function fakeVerifier(answer: (claim: ClaimToVerify) => Judgement | Promise<Judgement>) {
  const asked: ClaimToVerify[] = [];
  const verifier: Verifier = {
    model: "fast:1b",
    verify: async (claim, signal) => {
      signal?.throwIfAborted();
      asked.push(claim);
      return answer(claim);
    },
  };
  return { verifier, asked };
}

/** Lets pending work run until `until` holds (a bounded number of turns of the event loop). */
async function settle(until: () => boolean): Promise<void> {
  for (let turn = 0; turn < 200 && !until(); turn++) await new Promise((resolve) => setTimeout(resolve, 0));
}

const supported = (): Judgement => ({
  ok: true,
  verdict: "supported",
  reason: "Same fact.",
  structured: { level: "native", calls: 1 },
});

describe("checking an answer's citations", () => {
  it("checks every sentence for every source it cites: found when the passage holds the claim's words, numbers and names", async () => {
    const answer = "The Harbour Bridge opened in 1932 [1]. The Eiffel Tower was completed in 1889 [2].";
    const report = await checkCitations({ answer, sources: [bridge, tower] });
    expect(report.verifierModel).toBeUndefined();
    expect(report.checks.map(({ n, verdict, missing }) => ({ n, verdict, missing }))).toEqual([
      { n: 1, verdict: "found", missing: [] },
      { n: 2, verdict: "found", missing: [] },
    ]);
    const [first] = report.checks;
    expect(first?.sentence).toBe("The Harbour Bridge opened in 1932.");
    expect(answer.slice(first?.start, first?.end)).toBe("The Harbour Bridge opened in 1932 [1].");
    expect(first?.passage?.text).toContain("opened on 19 March 1932");
    expect(first?.passage?.matched).toEqual(expect.arrayContaining(["opened", "1932"]));
    expect(bridge.text.slice(first?.passage?.start, first?.passage?.end)).toBe(first?.passage?.text);
  });

  it("makes one check per source number of a sentence that cites several", async () => {
    const report = await checkCitations({ answer: "The bridge opened in 1932 [1, 2].", sources: [bridge, tower] });
    expect(report.checks.map((check) => [check.n, check.verdict])).toEqual([
      [1, "found"],
      [2, "not_found"],
    ]);
  });

  it("is not_found when the best passage lacks a number, date or name of the claim, and lists what it lacks", async () => {
    const report = await checkCitations({ answer: "The Harbour Bridge opened in 1934 [1].", sources: [bridge] });
    expect(report.checks[0]).toMatchObject({ verdict: "not_found", missing: ["1934"] });
    expect(report.checks[0]?.passage?.text).toContain("opened on 19 March 1932");
  });

  it("is not_found, without a passage, for a cited number the run has no stored source for", async () => {
    const report = await checkCitations({ answer: "The bridge opened in 1932 [3].", sources: [bridge, tower] });
    expect(report.checks).toEqual([
      expect.objectContaining({ n: 3, verdict: "not_found", passage: null, missing: [] }),
    ]);
  });

  it("is not_found, without a passage, when no passage holds any word of the claim", async () => {
    const report = await checkCitations({ answer: "Penguins huddle against winter storms [2].", sources: [tower] });
    expect(report.checks[0]).toMatchObject({ verdict: "not_found", passage: null });
  });

  it("has no checks for an answer without markers", async () => {
    expect((await checkCitations({ answer: "No sources here.", sources: [bridge] })).checks).toEqual([]);
  });

  it("with a verifier, judges only the checks that have a passage: not_found stays as the finder left it", async () => {
    const { verifier, asked } = fakeVerifier(supported);
    const answer = "The Harbour Bridge opened in 1932 [1]. It opened in 1934 [1]. The tower stands in Rome [3].";
    const report = await checkCitations({ answer, sources: [bridge, tower], verifier });
    expect(asked).toEqual([
      {
        claim: "The Harbour Bridge opened in 1932.",
        title: "Harbour Bridge",
        passage: report.checks[0]?.passage?.text,
      },
    ]);
    expect(report.checks.map((check) => check.verdict)).toEqual(["supported", "not_found", "not_found"]);
    expect(report.checks[0]?.reason).toBe("Same fact.");
    expect(report.checks[1]?.reason).toBeUndefined();
    expect(report.verifierModel).toBe("fast:1b");
  });

  it("keeps a claim the verifier could not judge as found, marked unjudged: no verdict is invented", async () => {
    const llm = scriptedLLM({ chat: Array.from({ length: 5 }, () => ({ content: "no idea" })) });
    const report = await checkCitations({
      answer: "The Harbour Bridge opened in 1932 [1].",
      sources: [bridge],
      verifier: modelVerifier(llm),
    });
    expect(report.checks[0]).toMatchObject({ verdict: "found", unjudged: true });
    expect(report.checks[0]?.reason).toBeUndefined();
  });

  it("keeps on the check how much of the verifier's request was cut to fit its model", async () => {
    const { verifier } = fakeVerifier(() => ({ ...supported(), cut: { kept: 900, total: 5000 } }));
    const report = await checkCitations({
      answer: "The Harbour Bridge opened in 1932 [1].",
      sources: [bridge],
      verifier,
    });
    expect(report.checks[0]).toMatchObject({ verdict: "supported", cut: { kept: 900, total: 5000 } });
  });

  it("runs at most `concurrency` verifier calls at once, in the slots shared across checks", async () => {
    let running = 0;
    let peak = 0;
    const gates: (() => void)[] = [];
    const { verifier } = fakeVerifier(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => gates.push(resolve));
      running--;
      return supported();
    });
    const answer = Array.from({ length: 5 }, () => "The Harbour Bridge opened in 1932 [1].").join(" ");
    const slots = new Semaphore();
    let finished = false;
    const checking = checkCitations({ answer, sources: [bridge], verifier, concurrency: 2, slots }).finally(() => {
      finished = true;
    });
    await settle(() => gates.length === 2);
    expect(slots.busy).toBe(2);
    expect(slots.waiting).toBe(0);
    while (!finished) {
      gates.shift()?.();
      await settle(() => gates.length > 0 || finished);
    }
    const report = await checking;
    expect(peak).toBe(2);
    expect(report.checks.map((check) => check.verdict)).toEqual(Array(5).fill("supported"));
  });

  it("waits for at most `concurrency` slots at once, however many claims: a long report queues no abort listener per claim", async () => {
    const { verifier } = fakeVerifier(() => supported());
    const slots = new Semaphore();
    const held = await slots.acquire(2);
    const other = await slots.acquire(2);
    const answer = Array.from({ length: 30 }, () => "The Harbour Bridge opened in 1932 [1].").join(" ");
    const checking = checkCitations({ answer, sources: [bridge], verifier, concurrency: 2, slots });
    await settle(() => slots.waiting === 2);
    await settle(() => slots.waiting > 2);
    expect(slots.waiting).toBe(2);
    held();
    other();
    const report = await checking;
    expect(report.checks).toHaveLength(30);
    expect(report.checks.every((check) => check.verdict === "supported")).toBe(true);
  });

  it("stops when aborted: the check rejects, the call under way has the signal, and no claim waiting for a slot is judged", async () => {
    const controller = new AbortController();
    const signals: (AbortSignal | undefined)[] = [];
    const verifier: Verifier = {
      model: "fast:1b",
      verify: async (_claim, signal) => {
        signals.push(signal);
        controller.abort(new Error("client left"));
        return supported();
      },
    };
    const answer = Array.from({ length: 4 }, () => "The Harbour Bridge opened in 1932 [1].").join(" ");
    await expect(
      checkCitations({ answer, sources: [bridge], verifier, concurrency: 1, signal: controller.signal }),
    ).rejects.toThrow("client left");
    expect(signals).toEqual([controller.signal]);
  });
});
