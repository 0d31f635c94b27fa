import { z } from "zod";
import type { RunEventName } from "@/lib/protocol/run-events";

/**
 * The shape of every stored run event's data, for imported conversations: the browser trusts stored
 * events as its own server's (`decodeRunEvent`), so an event read from a file is checked here first.
 * Objects are loose: fields this server does not know are kept as they were.
 */

const count = z.number().int().min(0);
const text = z.string();
const interrupt = z.looseObject({ id: text, text });

/** A notice's data: the trail words it from these fields, so an imported one must have the shape it expects. */
const noticeAbout = z.union([
  z.object({
    code: z.literal("cut"),
    what: z.enum(["question", "follow_up", "tool_result", "research"]),
    tool: text.optional(),
    kept: count,
    total: count,
  }),
  z.object({ code: z.literal("tool_budget"), budget: z.literal("context"), limit: count, chars: count }),
  z.object({ code: z.literal("tool_budget"), budget: z.literal("rounds"), rounds: count }),
  z.object({ code: z.literal("iteration_limit"), iterations: count }),
]);

const structuredRecord = z.looseObject({
  level: z.enum(["native", "json_mode", "plain", "default"]),
  calls: z.number().int().min(0).max(10),
});

const stepBase = { seq: count, at: z.number(), iteration: count, stepId: text.optional() };
const step = z.discriminatedUnion("type", [
  z.looseObject({ ...stepBase, type: z.literal("tool_call"), callId: text, tool: text, args: z.unknown() }),
  z.looseObject({
    ...stepBase,
    type: z.literal("tool_result"),
    callId: text,
    tool: text,
    ok: z.boolean(),
    observation: text,
    durationMs: z.number(),
    paging: z.looseObject({ nextToken: text }).optional(),
    artifact: z.looseObject({ filename: text, mimeType: text, content: text }).optional(),
    source: z.looseObject({ n: count, url: text, title: text }).optional(),
    results: z.array(z.looseObject({ title: text, url: text, snippet: text })).optional(),
  }),
  z.looseObject({ ...stepBase, type: z.literal("thinking"), text, durationMs: z.number().optional() }),
  z.looseObject({ ...stepBase, type: z.literal("interrupt"), interrupts: z.array(interrupt) }),
  z.looseObject({
    ...stepBase,
    type: z.literal("tool_selection"),
    selected: z.array(text),
    total: count,
    fellBack: z.literal(true).optional(),
    structured: structuredRecord.optional(),
  }),
  z.looseObject({ ...stepBase, type: z.literal("notice"), text, about: noticeAbout.optional() }),
  z.looseObject({
    ...stepBase,
    type: z.literal("approval_request"),
    approvalId: text,
    callId: text.optional(),
    tool: text,
    server: text,
    toolName: text,
    args: z.unknown(),
    annotations: z.record(z.string(), z.unknown()),
    expiresAt: z.number(),
  }),
  z.looseObject({
    ...stepBase,
    type: z.literal("approval_decision"),
    approvalId: text,
    callId: text.optional(),
    tool: text,
    decision: z.enum(["once", "always", "deny", "timeout"]),
    decidedBy: text.nullable(),
  }),
]);

export const runEventDataSchemas: Record<RunEventName, z.ZodType> = {
  run: z.looseObject({
    runId: text,
    conversationId: text,
    userMessageId: text,
    model: text,
    mode: z.enum(["native", "json", "dag"]),
  }),
  step,
  plan: z.looseObject({
    round: count,
    structured: structuredRecord.optional(),
    verdict: z
      .looseObject({ achieved: z.boolean(), confidence: z.number().min(0).max(1), reasoning: z.string() })
      .optional(),
    steps: z.array(
      z.looseObject({
        id: text,
        task: text,
        dependencies: z.array(text),
        tool_hint: text.nullable(),
        model_hint: z.enum(["fast", "reasoning"]).nullable(),
      }),
    ),
  }),
  step_progress: z.looseObject({
    stepId: text,
    status: z.enum(["running", "done", "failed", "skipped"]),
    model: text,
    result: text.optional(),
    at: z.number(),
    durationMs: z.number().optional(),
  }),
  compact: z.looseObject({
    stepId: text.optional(),
    originalMessages: count,
    keptMessages: count,
    tokensBefore: count,
    tokensAfter: count,
  }),
  answer: z.discriminatedUnion("status", [
    z.looseObject({ status: z.literal("start") }),
    z.looseObject({ status: z.literal("delta"), content: text }),
    z.looseObject({ status: z.literal("done") }),
  ]),
  thinking: z.looseObject({ iteration: count, stepId: text.optional(), delta: text }),
  error: z.looseObject({ code: text, message: text, retryable: z.boolean() }),
  done: z.looseObject({
    messageId: text,
    iterations: count,
    usage: z.looseObject({
      inputTokens: count,
      outputTokens: count,
      totalTokens: count,
      generationMs: z.number().optional(),
    }),
    elapsedMs: z.number(),
    stopped: z.boolean().optional(),
    interrupted: z.boolean().optional(),
    fallback: z.boolean().optional(),
    iterationLimit: z.boolean().optional(),
    pendingInterrupts: z.array(interrupt).optional(),
    titlePending: z.boolean().optional(),
  }),
  title: z.looseObject({ title: text }),
};
