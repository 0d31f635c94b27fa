import { describe, expect, it } from "vitest";
import { scriptedLLM } from "@/tests/support/scripted-llm";
import { modelVerifier, parseJudgement } from "./verifier";

const claim = {
  claim: "The bridge opened in 1932.",
  title: "Harbour Bridge",
  passage: "The bridge opened on 19 March 1932.",
};
const judged = (verdict: string, reason = "The passage gives the date.") => ({
  toolCalls: [{ name: "judge_citation", arguments: { verdict, reason } }],
});

describe("the citation verifier", () => {
  it("parses the model's verdict and reason from its structured reply", async () => {
    const llm = scriptedLLM({ chat: [judged("partly", "Only the year matches.")], model: "fast:1b" });
    const verifier = modelVerifier(llm);
    expect(verifier.model).toBe("fast:1b");
    const judgement = await verifier.verify(claim);
    expect(judgement).toEqual({
      ok: true,
      verdict: "partly",
      reason: "Only the year matches.",
      structured: { level: "native", calls: 1 },
    });
    // The model is given the claim, the source's title and the passage, and told to judge from the passage alone.
    const [system, request] = llm.chatCalls[0]?.messages ?? [];
    expect(system?.content).toContain("Judge only from the passage");
    expect(request?.content).toContain(claim.claim);
    expect(request?.content).toContain(claim.title);
    expect(request?.content).toContain(claim.passage);
  });

  it("reads the spellings models use for the three verdicts and nothing else", () => {
    expect(parseJudgement({ verdict: "Not supported", reason: " no " })).toEqual({
      verdict: "unsupported",
      reason: "no",
    });
    expect(parseJudgement({ verdict: "partially-supported" })).toEqual({ verdict: "partly", reason: "" });
    expect(parseJudgement({ verdict: "SUPPORTED", reason: "yes" })).toEqual({ verdict: "supported", reason: "yes" });
    expect(parseJudgement({ verdict: "maybe", reason: "?" })).toBeNull();
    expect(parseJudgement({ verdict: true })).toBeNull();
    expect(parseJudgement({ reason: "no verdict" })).toBeNull();
  });

  it("asks again when a reply gives no verdict, and takes the verdict of the retry", async () => {
    const llm = scriptedLLM({
      chat: [
        { content: "It looks fine to me." },
        { content: '{"verdict": "probably"}' },
        { content: '{"verdict": "supported", "reason": "Same date."}' },
      ],
    });
    const judgement = await modelVerifier(llm).verify(claim);
    expect(judgement).toMatchObject({ ok: true, verdict: "supported", reason: "Same date." });
    expect(judgement.ok && judgement.structured).toEqual({ level: "json_mode", calls: 3 });
    expect(llm.chatCalls[2]?.messages.at(-1)?.content).toContain("could not be parsed as valid JSON");
  });

  it("leaves a claim unjudged, with a clear problem, when no reply gives a verdict: none is invented", async () => {
    const llm = scriptedLLM({ chat: Array.from({ length: 5 }, () => ({ content: '{"verdict": "maybe"}' })) });
    const judgement = await modelVerifier(llm).verify(claim);
    expect(judgement.ok).toBe(false);
    expect(!judgement.ok && judgement.problem).toMatch(/No valid judge_citation object after 5 calls/);
    expect(llm.chatCalls).toHaveLength(5);
  });

  it("leaves a claim unjudged when the model fails, without throwing", async () => {
    const llm = scriptedLLM({
      abilities: { tool_call: false, json_mode: false },
      chat: [new Error("boom"), new Error("boom")],
    });
    const judgement = await modelVerifier(llm).verify(claim);
    expect(judgement).toMatchObject({ ok: false, problem: expect.stringContaining("boom") });
  });

  it("honours the abort signal: a check stopped mid-call throws and makes no further call", async () => {
    const controller = new AbortController();
    const llm = scriptedLLM({
      chat: [
        () => {
          controller.abort();
          return { content: "not yet" };
        },
        { content: '{"verdict": "supported", "reason": "late"}' },
      ],
    });
    await expect(modelVerifier(llm).verify(claim, controller.signal)).rejects.toThrow(/abort/i);
    // The next call went out with the aborted signal (and was refused): no level after it was tried.
    expect(llm.chatCalls).toHaveLength(2);
  });

  it("cuts a passage too long for the model's context, keeping the claim, and says how much it kept", async () => {
    const passage = `The bridge opened on 19 March 1932. ${"It carries rail and road traffic across the harbour. ".repeat(400)}`;
    const llm = scriptedLLM({ contextLength: 2048, chat: [judged("supported")] });
    const judgement = await modelVerifier(llm).verify({ ...claim, passage });
    expect(llm.overContext).toEqual([]);
    expect(judgement).toMatchObject({ ok: true, verdict: "supported" });
    const cut = judgement.ok ? judgement.cut : undefined;
    expect(cut?.total).toBeGreaterThan(passage.length);
    expect(cut?.kept).toBeLessThan(cut?.total ?? 0);
    const sent = llm.chatCalls[0]?.messages.at(-1)?.content ?? "";
    expect(sent).toHaveLength(cut?.kept ?? -1);
    expect(sent).toContain(claim.claim);
    expect(sent).toContain("[Truncated]");
  });

  it("asks in Japanese about a Japanese claim", async () => {
    const llm = scriptedLLM({ chat: [judged("supported")] });
    await modelVerifier(llm).verify({
      claim: "橋は1932年に開通した。",
      title: "橋",
      passage: "1932年3月19日に開通した。",
    });
    const [system, request] = llm.chatCalls[0]?.messages ?? [];
    expect(system?.content).toContain("出典の一節");
    expect(request?.content).toContain("主張:");
  });
});
