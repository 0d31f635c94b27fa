// POST /api/chat: Ollama's checks in Ollama's order, then the reply streamed as NDJSON
// (or merged into one JSON object when stream is false).
import type { ServerResponse } from "node:http";
import { type ChatRequestBody, decodeChatRequest, parseGoDuration } from "./decode";
import { type FakeModel, findModel, fullModelName, parseModelName } from "./models";
import { type MessagePart, planReply, type ReplyPlan, type ScriptedReply } from "./reply";

export interface ChatEnv {
  models(): FakeModel[];
  /** The next scripted reply that matches, else the default responder's. */
  takeReply(req: ChatRequestBody): ScriptedReply;
  markLoaded(model: FakeModel, keepAliveMs: number, numCtx: number | undefined): void;
  unload(model: FakeModel): void;
}

const DEFAULT_KEEP_ALIVE_MS = 5 * 60 * 1000;

const OPTION_TYPES: Record<string, "integer" | "float32" | "boolean" | "array"> = {
  num_ctx: "integer",
  num_predict: "integer",
  num_keep: "integer",
  seed: "integer",
  top_k: "integer",
  repeat_last_n: "integer",
  num_batch: "integer",
  num_gpu: "integer",
  main_gpu: "integer",
  num_thread: "integer",
  temperature: "float32",
  top_p: "float32",
  min_p: "float32",
  typical_p: "float32",
  repeat_penalty: "float32",
  presence_penalty: "float32",
  frequency_penalty: "float32",
  use_mmap: "boolean",
  numa: "boolean",
  stop: "array",
};

export function sendJson(res: ServerResponse, status: number, body: unknown, type = "application/json; charset=utf-8") {
  res.writeHead(status, { "Content-Type": type });
  res.end(JSON.stringify(body));
}

export async function handleChat(env: ChatEnv, raw: string, res: ServerResponse, signal: AbortSignal) {
  const startedAt = process.hrtime.bigint();
  const decoded = decodeChatRequest(raw);
  if (!decoded.ok) return sendJson(res, 400, { error: decoded.error });
  const req = decoded.body;

  if (!req.model || !parseModelName(req.model)) return sendJson(res, 400, { error: "model is required" });
  const model = findModel(env.models(), req.model);
  if (!model) return sendJson(res, 404, { error: `model '${req.model}' not found` });

  const messages = req.messages ?? [];
  const keepAliveMs = keepAlive(req.keep_alive);
  if (messages.length === 0 && keepAliveMs === 0) {
    env.unload(model);
    return sendJson(res, 200, emptyResponse(req.model, "unload"));
  }
  const thinkOn = req.think === true || typeof req.think === "string";
  if (thinkOn && !model.capabilities.includes("thinking")) {
    return sendJson(res, 400, { error: `${JSON.stringify(req.model)} does not support thinking` });
  }
  if (!model.capabilities.includes("completion")) {
    return sendJson(res, 400, { error: `${JSON.stringify(req.model)} does not support chat` });
  }
  if ((req.tools?.length ?? 0) > 0 && !model.capabilities.includes("tools")) {
    return sendJson(res, 400, { error: `${fullModelName(model)} does not support tools` });
  }
  const optionError = checkOptions(req.options);
  if (optionError) return sendJson(res, 500, { error: optionError });

  const numCtx = req.options?.num_ctx;
  env.markLoaded(model, keepAliveMs, typeof numCtx === "number" ? numCtx : undefined);
  if (messages.length === 0) return sendJson(res, 200, emptyResponse(req.model, "load"));

  const plan = planReply(env.takeReply(req), req, model);
  if (plan.hang) return waitForAbort(signal);
  await sleep(plan.delayMs, signal);
  if (signal.aborted) return;
  if (plan.error) return sendJson(res, plan.error.status, { error: plan.error.message });
  if (req.stream === false) return answerWhole(res, req, plan, signal, startedAt);
  return answerStream(res, req, plan, signal, startedAt);
}

async function answerStream(
  res: ServerResponse,
  req: ChatRequestBody,
  plan: ReplyPlan,
  signal: AbortSignal,
  startedAt: bigint,
) {
  // Like Ollama, headers go out with the first chunk, so an error before any chunk is still a status.
  const writeLine = (value: unknown) => {
    if (!res.headersSent) res.writeHead(200, { "Content-Type": "application/x-ndjson" });
    res.write(`${JSON.stringify(value)}\n`);
  };
  for (const [i, part] of plan.parts.entries()) {
    if (i > 0) await sleep(plan.chunkDelayMs, signal);
    if (signal.aborted) return;
    writeLine({ model: req.model, created_at: now(), message: message(part), done: false });
  }
  await sleep(plan.parts.length > 0 ? plan.chunkDelayMs : 0, signal);
  if (signal.aborted) return;
  if (plan.dropConnection) {
    // What was written reaches the client first, as it would over a real connection that then breaks.
    await new Promise((resolve) => res.write("", resolve));
    return res.destroy();
  }
  if (plan.midStreamError !== undefined) {
    if (!res.headersSent) return sendJson(res, 500, { error: plan.midStreamError }, "application/json");
    writeLine({ error: plan.midStreamError });
    return res.end();
  }
  writeLine(finalChunk(req.model, plan, startedAt, { role: "assistant", content: "" }));
  res.end();
}

async function answerWhole(
  res: ServerResponse,
  req: ChatRequestBody,
  plan: ReplyPlan,
  signal: AbortSignal,
  startedAt: bigint,
) {
  await sleep(plan.chunkDelayMs * plan.parts.length, signal);
  if (signal.aborted) return;
  if (plan.midStreamError !== undefined) return sendJson(res, 500, { error: plan.midStreamError });
  const merged: MessagePart = {
    content: plan.parts.map((p) => p.content).join(""),
    thinking: plan.parts.map((p) => p.thinking ?? "").join(""),
    tool_calls: plan.parts.flatMap((p) => p.tool_calls ?? []),
  };
  sendJson(res, 200, finalChunk(req.model, plan, startedAt, message(merged)));
}

function message(part: MessagePart) {
  return {
    role: "assistant",
    content: part.content,
    ...(part.thinking ? { thinking: part.thinking } : {}),
    ...(part.tool_calls?.length ? { tool_calls: part.tool_calls } : {}),
  };
}

function finalChunk(model: string, plan: ReplyPlan, startedAt: bigint, msg: ReturnType<typeof message>) {
  const elapsed = Number(process.hrtime.bigint() - startedAt);
  const load = 1_500_000;
  const promptEval = plan.promptEvalCount * 250_000;
  const evalDuration = Math.max(elapsed - load - promptEval, plan.evalCount * 1_000_000);
  return {
    model,
    created_at: now(),
    message: msg,
    done: true,
    done_reason: plan.doneReason,
    total_duration: Math.max(elapsed, load + promptEval + evalDuration),
    load_duration: load,
    prompt_eval_count: plan.promptEvalCount,
    prompt_eval_duration: promptEval,
    eval_count: plan.evalCount,
    eval_duration: evalDuration,
  };
}

function emptyResponse(model: string, doneReason: "load" | "unload") {
  return { model, created_at: now(), message: { role: "assistant", content: "" }, done: true, done_reason: doneReason };
}

function now(): string {
  return new Date().toISOString();
}

function keepAlive(value: string | number | undefined): number {
  if (value === undefined || value === null) return DEFAULT_KEEP_ALIVE_MS;
  const ms = typeof value === "number" ? value * 1000 : (parseGoDuration(value) ?? DEFAULT_KEEP_ALIVE_MS);
  return ms < 0 ? Number.MAX_SAFE_INTEGER / 2 : ms;
}

/** api.Options.FromMap: a known option of the wrong type fails the request (status 500). */
function checkOptions(options: Record<string, unknown> | undefined): string | undefined {
  for (const [key, value] of Object.entries(options ?? {})) {
    const want = OPTION_TYPES[key];
    if (!want || value === null) continue;
    const ok =
      want === "boolean"
        ? typeof value === "boolean"
        : want === "array"
          ? Array.isArray(value)
          : typeof value === "number";
    if (!ok) return `option ${JSON.stringify(key)} must be of type ${want}`;
    if (want === "array" && Array.isArray(value) && value.some((v) => typeof v !== "string")) {
      return `option ${JSON.stringify(key)} must be of an array of strings`;
    }
  }
  return undefined;
}

/** Waits `ms`, or less when the client goes away. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
