import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseConfig } from "@/lib/env-config";
import type { AgentStep } from "@/lib/protocol/run-events";
import { renderObservation, toolOk } from "@/lib/tools/outcome";
import { defineTool, type ToolContext, ToolRegistry } from "@/lib/tools/registry";
import { UrlLeakGuard } from "@/lib/tools/url-leak-guard";
import { type AlwaysAllowed, type ApprovalGateOptions, gateToolCalls, PendingApprovals } from "./tool-approval";

/**
 * The approval gate around a run's tools (docs/security.md, "Tools that act need the user's consent"), with
 * an MCP-like tool that counts its calls.
 */

type ApprovalStep = Extract<AgentStep, { type: "approval_request" | "approval_decision" }>;

function setup({
  policy = "ask",
  timeoutMs = 60_000,
  annotations = { destructiveHint: true },
}: {
  policy?: "ask" | "allow" | "deny";
  timeoutMs?: number;
  annotations?: Record<string, unknown>;
} = {}) {
  const ran: string[] = [];
  const steps: ApprovalStep[] = [];
  const stored = new Map<string, string | null>();
  const always: AlwaysAllowed = {
    has: async (tool) => stored.has(tool),
    add: async (tool, by) => {
      stored.set(tool, by);
    },
  };
  const pending = new PendingApprovals();
  const registry = new ToolRegistry()
    .register(
      defineTool({
        name: "files__write_file",
        description: "Writes a file.",
        schema: z.object({ path: z.string() }),
        paged: false,
        consent: { server: "files", toolName: "write_file", annotations, policy: () => policy },
        execute: async ({ path }) => {
          ran.push(path);
          return toolOk(`wrote ${path}`);
        },
      }),
    )
    .register(
      defineTool({
        name: "web_search",
        description: "Searches.",
        schema: z.object({ query: z.string() }),
        paged: false,
        execute: async ({ query }) => {
          ran.push(`search:${query}`);
          return toolOk("results");
        },
      }),
    );
  const options: ApprovalGateOptions = {
    pending,
    always,
    onStep: (step) => steps.push(step),
    timeoutMs,
    language: "en",
  };
  const gated = gateToolCalls(registry, options);
  const controller = new AbortController();
  const context = (id = "call_1"): ToolContext => ({
    conversationId: "c1",
    signal: controller.signal,
    language: "en",
    urlGuard: new UrlLeakGuard(parseConfig({})),
    call: { id, iteration: 2 },
  });
  const call = (path: string, id?: string) =>
    gated.execute("files__write_file", { path }, context(id), { maxResultChars: 10_000 });
  /** The approval card of the last call that asked. */
  const lastRequest = () => steps.findLast((step) => step.type === "approval_request");
  const asked = async (count = 1) => {
    await expect.poll(() => pending.size).toBe(count);
    return lastRequest() as Extract<ApprovalStep, { type: "approval_request" }>;
  };
  return { ran, steps, stored, pending, gated, controller, call, asked, context };
}

describe("the approval gate", () => {
  it("a call of a tool that asks waits for the decision and runs once approved", async () => {
    const { ran, steps, pending, call, asked } = setup();
    const outcome = call("/etc/notes.txt", "call_7");
    const request = await asked();
    expect(request).toMatchObject({
      type: "approval_request",
      iteration: 2,
      callId: "call_7",
      tool: "files__write_file",
      server: "files",
      toolName: "write_file",
      args: { path: "/etc/notes.txt" },
      annotations: { destructiveHint: true },
    });
    expect(ran).toEqual([]);
    pending.decide(request.approvalId, "once", "user-1");
    expect(renderObservation(await outcome)).toBe("wrote /etc/notes.txt");
    expect(ran).toEqual(["/etc/notes.txt"]);
    expect(steps.at(-1)).toEqual({
      type: "approval_decision",
      iteration: 2,
      approvalId: request.approvalId,
      callId: "call_7",
      tool: "files__write_file",
      decision: "once",
      decidedBy: "user-1",
    });
  });

  it("approve once asks again at the next call", async () => {
    const { pending, call, asked } = setup();
    const first = call("a");
    pending.decide((await asked()).approvalId, "once", null);
    await first;
    const second = call("b");
    const request = await asked();
    pending.decide(request.approvalId, "deny", null);
    expect((await second).ok).toBe(false);
  });

  it("always for this tool in this chat is stored and the next call runs without asking", async () => {
    const { ran, steps, stored, pending, call, asked } = setup();
    const first = call("a");
    pending.decide((await asked()).approvalId, "always", "user-1");
    await first;
    expect(stored.get("files__write_file")).toBe("user-1");
    const asks = steps.length;
    expect((await call("b")).ok).toBe(true);
    expect(steps.length).toBe(asks);
    expect(ran).toEqual(["a", "b"]);
  });

  it("always also lets the run's other waiting calls of the same tool go", async () => {
    const { ran, pending, call, asked } = setup();
    const first = call("a", "call_1");
    const second = call("b", "call_2");
    const request = await asked(2);
    pending.decide(request.approvalId, "always", null);
    await Promise.all([first, second]);
    expect(ran.sort()).toEqual(["a", "b"]);
    expect(pending.size).toBe(0);
  });

  it("a denied call is not run and the model reads that the user denied it", async () => {
    const { ran, steps, pending, call, asked } = setup();
    const outcome = call("/home/me/.ssh/authorized_keys");
    const request = await asked();
    pending.decide(request.approvalId, "deny", "user-1");
    const denied = await outcome;
    expect(denied).toMatchObject({ ok: false, error: { kind: "not_approved" } });
    expect(renderObservation(denied)).toContain("The user denied this call of files__write_file");
    expect(ran).toEqual([]);
    expect(steps.at(-1)).toMatchObject({ type: "approval_decision", decision: "deny", decidedBy: "user-1" });
  });

  it("no decision within the timeout denies the call", async () => {
    const { ran, steps, pending, call } = setup({ timeoutMs: 5 });
    const outcome = await call("a");
    expect(outcome).toMatchObject({ ok: false, error: { kind: "not_approved" } });
    expect(renderObservation(outcome)).toContain("did not approve this call of files__write_file");
    expect(ran).toEqual([]);
    expect(steps.map((step) => step.type)).toEqual(["approval_request", "approval_decision"]);
    expect(steps.at(-1)).toMatchObject({ decision: "timeout", decidedBy: null });
    expect(pending.size).toBe(0);
  });

  it("Stop during the wait ends it: the call is not run and the abort reaches the engine", async () => {
    const { ran, pending, controller, call, asked } = setup();
    const outcome = call("a");
    const request = await asked();
    controller.abort(new DOMException("stopped", "AbortError"));
    await expect(outcome).rejects.toThrow("stopped");
    expect(ran).toEqual([]);
    expect(pending.size).toBe(0);
    expect(() => pending.decide(request.approvalId, "once", null)).toThrow(/not waiting/);
  });

  it("a decision for an approval nothing waits for is a 409", async () => {
    const { pending, call, asked } = setup();
    expect(() => pending.decide("no-such-id", "once", null)).toThrow(
      expect.objectContaining({ code: "conflict:no_pending_approval" }),
    );
    const outcome = call("a");
    const { approvalId } = await asked();
    pending.decide(approvalId, "once", null);
    await outcome;
    // Decided already: a second decision (another tab, a replay) changes nothing.
    expect(() => pending.decide(approvalId, "deny", null)).toThrow(
      expect.objectContaining({ code: "conflict:no_pending_approval" }),
    );
  });

  it("the admin's allow runs a tool that acts at once, deny refuses it without asking", async () => {
    const allowed = setup({ policy: "allow" });
    expect((await allowed.call("a")).ok).toBe(true);
    expect(allowed.steps).toEqual([]);

    const denied = setup({ policy: "deny" });
    const outcome = await denied.call("a");
    expect(renderObservation(outcome)).toContain("The administrator does not allow files__write_file");
    expect(denied.ran).toEqual([]);
    expect(denied.steps).toEqual([]);
  });

  it("tools without a consent (the built-in ones) are not gated", async () => {
    const { ran, steps, gated, context } = setup();
    const outcome = await gated.execute("web_search", { query: "q" }, context(), { maxResultChars: 1000 });
    expect(outcome.ok).toBe(true);
    expect(ran).toEqual(["search:q"]);
    expect(steps).toEqual([]);
  });

  it("bad arguments are refused before anyone is asked", async () => {
    const { steps, gated, context } = setup();
    const outcome = await gated.execute("files__write_file", { path: 3 }, context(), { maxResultChars: 1000 });
    expect(outcome).toMatchObject({ ok: false, error: { kind: "invalid_args" } });
    expect(steps).toEqual([]);
  });
});
