// POST /v1/chat/completions: each server's checks, then the reply as one chat.completion or as SSE
// chat.completion.chunk events in that server's shapes, ending with `data: [DONE]`.
import type { ServerResponse } from "node:http";
import { sleep } from "../fake-ollama/chat";
import {
  apiError,
  completionId,
  contextExceeded,
  type Flavor,
  formatRefused,
  maxTokensTooLarge,
  reasoningField,
  toolCallId,
  toolsRefused,
  type WireError,
} from "./flavor";
import { BUILD_INFO, type FakeOpenAIModel } from "./models";
import {
  argumentPieces,
  type ChatRequest,
  contentPieces,
  estimateTokens,
  promptTokens,
  type ScriptedReply,
} from "./reply";

export interface ChatEnv {
  flavor: Flavor;
  models(): FakeOpenAIModel[];
  /** The next scripted reply that matches, else the default responder's. */
  takeReply(req: ChatRequest, honoursFormat: boolean): ScriptedReply;
}

type Delta = Record<string, unknown>;

interface Plan {
  deltas: Delta[];
  content: string;
  reasoning: string;
  toolCalls: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  finishReason: "stop" | "length" | "tool_calls";
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export function sendJson(res: ServerResponse, flavor: Flavor, { status, body }: WireError) {
  const type = flavor === "llama-server" ? "application/json; charset=utf-8" : "application/json";
  res.writeHead(status, { "Content-Type": type });
  res.end(JSON.stringify(body));
}

export async function handleChat(env: ChatEnv, raw: string, res: ServerResponse, signal: AbortSignal) {
  const { flavor } = env;
  let req: ChatRequest;
  try {
    req = JSON.parse(raw) as ChatRequest;
  } catch (error) {
    const message = flavor === "llama-server" ? `[json.exception.parse_error.101] ${error}` : "JSON decode error";
    return sendJson(res, flavor, apiError(flavor, flavor === "llama-server" ? 500 : 400, message));
  }
  const checked = validate(env, req);
  if ("status" in checked) return sendJson(res, flavor, checked);
  const { model, honoursFormat, parsesTools } = checked;

  const reply = env.takeReply(req, honoursFormat);
  if (reply.hang) return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
  await sleep(reply.delayMs ?? 0, signal);
  if (signal.aborted) return;
  if (reply.errorStatus !== undefined || reply.error !== undefined) {
    return sendJson(res, flavor, apiError(flavor, reply.errorStatus ?? 500, reply.error ?? "something went wrong"));
  }
  const plan = planReply(flavor, reply, req, model, parsesTools);
  const id = completionId(flavor);
  if (req.stream === true) return stream(flavor, res, req, model, plan, reply, id, signal);
  await sleep((reply.chunkDelayMs ?? 0) * plan.deltas.length, signal);
  if (signal.aborted) return;
  if (reply.dropConnection) return res.destroy();
  if (reply.midStreamError !== undefined) return sendJson(res, flavor, apiError(flavor, 500, reply.midStreamError));
  sendJson(res, flavor, { status: 200, body: completion(flavor, model, plan, id) });
}

/** The server's own checks, in its order; a refused request consumes no scripted reply. */
function validate(
  env: ChatEnv,
  req: ChatRequest,
): WireError | { model: FakeOpenAIModel; honoursFormat: boolean; parsesTools: boolean } {
  const { flavor } = env;
  const models = env.models();
  let model = models[0];
  if (flavor === "vllm" && req.model) {
    model = models.find((m) => m.id === req.model);
    if (!model) return apiError(flavor, 404, `The model \`${req.model}\` does not exist.`, { param: "model" });
  }
  // llama-server serves one model whatever `model` says; with several it is a router and checks the name.
  if (flavor === "llama-server" && models.length > 1) {
    if (!req.model) return apiError(flavor, 400, "model name is missing from the request");
    model = models.find((m) => m.id === req.model);
    if (!model) return apiError(flavor, 400, `model '${req.model}' not found`);
  }
  if (!model) return apiError(flavor, 503, "Loading model");
  if (flavor === "vllm" && req.stream_options && !req.stream) {
    return apiError(flavor, 400, "Stream options can only be defined when `stream=True`.");
  }
  if (!Array.isArray(req.messages)) {
    return flavor === "llama-server"
      ? apiError(flavor, 400, "'messages' is required")
      : apiError(flavor, 400, "[{'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required'}]");
  }
  const hasTools = (req.tools?.length ?? 0) > 0;
  if (hasTools && model.tools === false) {
    const refused = toolsRefused(flavor, req.tool_choice);
    if (refused) return refused;
  }
  const format = req.response_format?.type;
  let honoursFormat = true;
  if ((format === "json_object" || format === "json_schema") && !(model.jsonModes ?? [format]).includes(format)) {
    if (model.unsupportedFormat !== "ignore") return formatRefused(flavor, format);
    honoursFormat = false;
  }
  const prompt = promptTokens(req);
  if (prompt >= model.contextLength) return contextExceeded(flavor, prompt, model.contextLength);
  const maxTokens = req.max_completion_tokens ?? req.max_tokens;
  if (flavor === "vllm" && typeof maxTokens === "number" && prompt + maxTokens > model.contextLength) {
    return maxTokensTooLarge(maxTokens, prompt, model.contextLength);
  }
  // Tool calls are parsed out of the text only when tools were offered, allowed and supported (or forced on vLLM).
  const parsesTools = hasTools && req.tool_choice !== "none" && (model.tools !== false || flavor === "vllm");
  return { model, honoursFormat, parsesTools };
}

function planReply(
  flavor: Flavor,
  reply: ScriptedReply,
  req: ChatRequest,
  model: FakeOpenAIModel,
  parsesTools: boolean,
): Plan {
  const deltas: Delta[] = [];
  const thinking = req.chat_template_kwargs?.enable_thinking === false ? "" : (reply.reasoning ?? "");
  const pieces = contentPieces(reply);
  if (thinking && model.reasoning !== false) {
    for (const piece of contentPieces({ content: thinking })) deltas.push({ [reasoningField(flavor)]: piece });
  } else if (thinking) {
    pieces.unshift(`<think>\n${thinking}\n</think>\n\n`);
  }
  const calls = (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? toolCallId(flavor),
    type: "function" as const,
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
  // Without a parser the model's attempt at a call stays text in content, as on a real server.
  if (!parsesTools) {
    pieces.push(
      ...(reply.toolCalls ?? []).map((call) => JSON.stringify({ name: call.name, arguments: call.arguments })),
    );
  }
  for (const piece of pieces) if (piece) deltas.push({ content: piece });
  const toolCalls = parsesTools ? calls : [];
  toolCalls.forEach((call, index) => {
    // The first delta of a call names it (llama-server adds an empty arguments); the rest carry only fragments.
    const head = flavor === "llama-server" ? { name: call.function.name, arguments: "" } : { name: call.function.name };
    deltas.push({ tool_calls: [{ index, id: call.id, type: "function", function: head }] });
    for (const fragment of argumentPieces(call.function.arguments)) {
      deltas.push({ tool_calls: [{ index, function: { arguments: fragment } }] });
    }
  });
  const content = pieces.join("");
  const output = content + thinking + toolCalls.map((c) => c.function.name + c.function.arguments).join("");
  const prompt = reply.promptTokens ?? promptTokens(req);
  const completionTokens = reply.completionTokens ?? estimateTokens(output);
  // vLLM reports a call forced by name as "stop", as OpenAI does.
  const named = flavor === "vllm" && typeof req.tool_choice === "object" && req.tool_choice !== null;
  const finishReason =
    reply.finishReason === "length" ? "length" : toolCalls.length > 0 && !named ? "tool_calls" : "stop";
  return {
    deltas,
    content,
    reasoning: model.reasoning !== false ? thinking : "",
    toolCalls,
    finishReason,
    usage: { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: prompt + completionTokens },
  };
}

function completion(flavor: Flavor, model: FakeOpenAIModel, plan: Plan, id: string) {
  const content = plan.content === "" && plan.toolCalls.length > 0 ? null : plan.content;
  const created = Math.floor(Date.now() / 1000);
  if (flavor === "llama-server") {
    const message = {
      role: "assistant",
      ...(plan.reasoning ? { reasoning_content: plan.reasoning } : {}),
      content,
      ...(plan.toolCalls.length ? { tool_calls: plan.toolCalls } : {}),
    };
    return {
      choices: [{ finish_reason: plan.finishReason, index: 0, message }],
      created,
      model: model.id,
      system_fingerprint: BUILD_INFO,
      object: "chat.completion",
      usage: plan.usage,
      id,
      timings: timings(plan),
    };
  }
  const nulls = { refusal: null, annotations: null, audio: null, function_call: null };
  const calls = plan.toolCalls.length ? { tool_calls: plan.toolCalls } : {};
  const message = { role: "assistant", content, ...nulls, ...calls, reasoning: plan.reasoning || null };
  return {
    id,
    object: "chat.completion",
    created,
    model: model.id,
    choices: [{ index: 0, message, logprobs: null, finish_reason: plan.finishReason, stop_reason: null }],
    service_tier: null,
    system_fingerprint: null,
    usage: { ...plan.usage, prompt_tokens_details: null },
    prompt_logprobs: null,
    kv_transfer_params: null,
  };
}

async function stream(
  flavor: Flavor,
  res: ServerResponse,
  req: ChatRequest,
  model: FakeOpenAIModel,
  plan: Plan,
  reply: ScriptedReply,
  id: string,
  signal: AbortSignal,
) {
  const llama = flavor === "llama-server";
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    llama
      ? {
          choices,
          created,
          id,
          model: model.id,
          system_fingerprint: BUILD_INFO,
          object: "chat.completion.chunk",
          ...extra,
        }
      : { id, object: "chat.completion.chunk", created, model: model.id, choices, ...extra };
  const choice = (delta: Delta, finish: string | null = null) =>
    llama
      ? { finish_reason: finish, index: 0, delta }
      : { index: 0, delta, logprobs: null, finish_reason: finish, ...(finish ? { stop_reason: null } : {}) };
  const send = (value: unknown) => res.write(`data: ${JSON.stringify(value)}\n\n`);

  res.writeHead(200, {
    "Content-Type": llama ? "text/event-stream" : "text/event-stream; charset=utf-8",
    ...(llama ? { "X-Accel-Buffering": "no" } : {}),
  });
  send(chunk([choice({ role: "assistant", content: llama ? null : "" })]));
  for (const delta of plan.deltas) {
    await sleep(reply.chunkDelayMs ?? 0, signal);
    if (signal.aborted) return;
    send(chunk([choice(delta)]));
  }
  await sleep(reply.chunkDelayMs ?? 0, signal);
  if (signal.aborted) return;
  if (reply.dropConnection) {
    // What was written reaches the client first, as over a real connection that then breaks.
    await new Promise((resolve) => res.write("", resolve));
    return res.destroy();
  }
  if (reply.midStreamError !== undefined) {
    send(apiError(flavor, 500, reply.midStreamError).body);
    // llama-server ends the stream at the error; vLLM still sends [DONE].
    return res.end(llama ? undefined : "data: [DONE]\n\n");
  }
  // Both send a usage chunk only when stream_options asks; vLLM's include_usage defaults to true, llama-server's to false.
  const asked = req.stream_options?.include_usage;
  const withUsage = req.stream_options !== undefined && (llama ? asked === true : asked !== false);
  const finishDelta = llama ? {} : { content: "" };
  const finish = chunk([choice(finishDelta, plan.finishReason)], llama && !withUsage ? { timings: timings(plan) } : {});
  send(finish);
  if (withUsage) send(chunk([], { usage: plan.usage, ...(llama ? { timings: timings(plan) } : {}) }));
  res.end("data: [DONE]\n\n");
}

/** llama-server's own speed report, on the last chunk and the whole completion. */
function timings({ usage }: Plan) {
  const { prompt_tokens: prompt, completion_tokens: predicted } = usage;
  return {
    cache_n: 0,
    prompt_n: prompt,
    prompt_ms: prompt * 0.4,
    predicted_n: predicted,
    predicted_ms: predicted * 25,
  };
}
