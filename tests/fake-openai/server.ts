// A fake OpenAI-compatible server speaking what llama.cpp's `llama-server` and vLLM really send, driven by
// scripted replies and recording every request, for vitest and Playwright (tests/fake-openai/cli.ts).
//
// `url` is the server's root WITHOUT `/v1` (http://127.0.0.1:PORT): the OpenAI API is under `${url}/v1`,
// llama-server's `/props` and `/health` beside it, the control API under `${url}/__fake/`.
//
// Written from the servers' own source and docs, not from any client of ours:
// - llama-server: https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md and
//   tools/server/server-http.cpp (API-key middleware: /health, /v1/health, /models, /v1/models are public;
//   401 "Invalid API Key"; 404 "File Not Found"), server.cpp (ex_wrapper: std::invalid_argument → 400
//   invalid_request_error, other exceptions → 500 server_error), server-common.cpp (format_error_response,
//   oaicompat_chat_params_parse: "tools param requires --jinja flag", the response_format message,
//   "'messages' is required"; ids: "chatcmpl-" + 32 alphanumerics, tool ids 32 alphanumerics),
//   server-task.cpp (to_json_oaicompat_chat[_stream]: first delta {"role":"assistant","content":null}, an
//   empty finish delta, usage chunk with choices [] only for stream_options.include_usage, `timings` on
//   the last chunk), common/chat.cpp (common_chat_msg_diff_to_json_oaicompat: a call's first delta has id,
//   type and name with arguments "", later ones only index + an arguments fragment; `reasoning_content`),
//   server-context.cpp (streaming: an error before the first chunk is an HTTP error, a later one is a
//   `data: {"error":…}` event and the stream ends without [DONE]; "request (N tokens) exceeds the available
//   context size (M tokens), try increasing it" with type exceed_context_size_error, n_prompt_tokens, n_ctx;
//   /v1/models `created` is the current time; /props default_generation_settings.n_ctx), server-models.cpp
//   (router mode: "model 'x' not found", /props n_ctx 0).
// - vLLM: https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/engine/protocol.py
//   (ErrorResponse {"error":{message,type,param,code}}, ModelCard with max_model_len and `created` = now,
//   StreamOptions include_usage default true), chat_completion/protocol.py (ChatMessage `reasoning`,
//   stream_options only with stream=True), chat_completion/serving.py (first delta
//   {"role":"assistant","content":""}, deltas with logprobs null, finish chunk with stop_reason, usage chunk
//   with choices [], an error mid-stream as a data event followed by [DONE]), models/serving.py ("The model
//   `x` does not exist.", NotFoundError, 404), the auth middleware (only /v1/* checked, 401
//   {"error":"Unauthorized"}), the tool-choice check ("\"auto\" tool choice requires
//   --enable-auto-tool-choice and --tool-call-parser to be set"), the context checks ("This model's maximum
//   context length is …"), xgrammar's "The provided JSON schema contains features not supported by
//   xgrammar."; the rename of reasoning_content to reasoning: https://github.com/vllm-project/vllm/pull/27752
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ChatEnv, handleChat, sendJson } from "./chat";
import { authError, type Flavor, notFoundPath } from "./flavor";
import { DEFAULT_MODELS, type FakeOpenAIModel, modelsBody, propsBody } from "./models";
import { type ChatRequest, defaultReply, replyMatches, type ScriptedReply } from "./reply";

export type { Flavor } from "./flavor";
export { DEFAULT_MODELS, type FakeOpenAIModel } from "./models";
export type { ChatRequest, ReplyCondition, ScriptedReply, ScriptedToolCall } from "./reply";

export interface RecordedRequest {
  method: string;
  path: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect whatever the client sent
  body: any;
  headers: Record<string, string | string[] | undefined>;
  receivedAt: number;
  /** The client closed the connection before the reply finished. */
  aborted: boolean;
  finished: boolean;
}

export interface FakeOpenAI {
  /** The root, without `/v1`. */
  url: string;
  flavor: Flavor;
  requests: RecordedRequest[];
  chatRequests(): RecordedRequest[];
  /** Queues replies; each is used once, by the first request it matches. */
  script(...replies: (ScriptedReply | ScriptedReply[])[]): void;
  setModels(models: FakeOpenAIModel[]): void;
  reset(): void;
  close(): Promise<void>;
}

export interface FakeOpenAIOptions {
  flavor?: Flavor;
  models?: FakeOpenAIModel[];
  /** Requests must carry it as a Bearer token (llama-server also takes X-Api-Key), else 401. */
  apiKey?: string;
  port?: number;
  host?: string;
  replies?: ScriptedReply[];
}

const CONTROL_PREFIX = "/__fake/";

export async function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const flavor = opts.flavor ?? "llama-server";
  const initialModels = structuredClone(opts.models ?? DEFAULT_MODELS[flavor]);
  let models = structuredClone(initialModels);
  let queue: ScriptedReply[] = [...(opts.replies ?? [])];
  const requests: RecordedRequest[] = [];

  const chatEnv: ChatEnv = {
    flavor,
    models: () => models,
    takeReply(req: ChatRequest, honoursFormat: boolean) {
      const index = queue.findIndex((reply) => replyMatches(reply, req));
      if (index < 0) return defaultReply(req, honoursFormat);
      return queue.splice(index, 1)[0] ?? defaultReply(req, honoursFormat);
    },
  };

  const fake: FakeOpenAI = {
    url: "",
    flavor,
    requests,
    chatRequests: () => requests.filter((r) => r.path === "/v1/chat/completions"),
    script: (...replies) => queue.push(...replies.flat()),
    setModels(next) {
      models = structuredClone(next);
    },
    reset() {
      queue = [];
      requests.length = 0;
      models = structuredClone(initialModels);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };

  function route(req: IncomingMessage, res: ServerResponse, raw: string, signal: AbortSignal) {
    const url = new URL(req.url ?? "/", "http://fake");
    const key = `${req.method ?? "GET"} ${url.pathname}`;
    if (url.pathname.startsWith(CONTROL_PREFIX)) return control(key, raw, res);
    const refused = opts.apiKey ? authError(flavor, url.pathname, req.headers, opts.apiKey) : null;
    if (refused) return sendJson(res, flavor, refused);
    const answer = (body: unknown) => sendJson(res, flavor, { status: 200, body });
    const list = () => answer(modelsBody(flavor, models));
    const chat = () => handleChat(chatEnv, raw, res, signal);
    // A router (several models) answers /props for the one named in ?model=, else without an n_ctx.
    const props = () => {
      const named = url.searchParams.get("model");
      return answer(propsBody(models.length === 1 ? models[0] : models.find((m) => m.id === named)));
    };
    const routes: Record<string, () => unknown> =
      flavor === "llama-server"
        ? {
            "GET /health": () => answer({ status: "ok" }),
            "GET /v1/health": () => answer({ status: "ok" }),
            "GET /models": list,
            "GET /v1/models": list,
            "GET /props": props,
            "POST /chat/completions": chat,
            "POST /v1/chat/completions": chat,
          }
        : {
            "GET /health": () => res.writeHead(200).end(),
            "GET /v1/models": list,
            "POST /v1/chat/completions": chat,
          };
    return (routes[key] ?? (() => sendJson(res, flavor, notFoundPath(flavor))))();
  }

  function control(key: string, raw: string, res: ServerResponse) {
    const ok = (body: unknown) => sendJson(res, "vllm", { status: 200, body });
    const bad = (message: string) => sendJson(res, "vllm", { status: 400, body: { error: message } });
    const body = parseJson(raw);
    switch (key) {
      case "GET /__fake/requests":
        return ok(requests);
      case "POST /__fake/reset":
        fake.reset();
        return ok({ ok: true });
      case "POST /__fake/script": {
        const replies = isRecord(body) ? body.replies : undefined;
        if (!Array.isArray(replies) || !replies.every(isRecord)) return bad('expected {"replies":[...]}');
        // `match` is a function and cannot come over the wire; `when` can.
        fake.script(...replies.map(({ match: _match, ...reply }) => reply as ScriptedReply));
        return ok({ queued: queue.length });
      }
      case "POST /__fake/models": {
        const next = isRecord(body) ? body.models : undefined;
        const valid = (m: unknown) => isRecord(m) && typeof m.id === "string" && typeof m.contextLength === "number";
        if (!Array.isArray(next) || !next.every(valid)) return bad('expected {"models":[{"id","contextLength",...}]}');
        fake.setModels(next as FakeOpenAIModel[]);
        return ok({ ok: true });
      }
      default:
        return sendJson(res, "vllm", { status: 404, body: { error: `unknown control endpoint ${key}` } });
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const path = new URL(req.url ?? "/", "http://fake").pathname;
      const aborter = new AbortController();
      if (!path.startsWith(CONTROL_PREFIX)) {
        const record: RecordedRequest = {
          method: req.method ?? "GET",
          path,
          body: raw === "" ? undefined : (parseJson(raw) ?? raw),
          headers: { ...req.headers },
          receivedAt: Date.now(),
          aborted: false,
          finished: false,
        };
        requests.push(record);
        res.on("finish", () => {
          record.finished = true;
        });
        res.on("close", () => {
          if (!res.writableFinished) record.aborted = true;
        });
      }
      res.on("close", () => {
        if (!res.writableFinished) aborter.abort();
      });
      Promise.resolve()
        .then(() => route(req, res, raw, aborter.signal))
        .catch((error: unknown) => {
          if (!res.headersSent) sendJson(res, flavor, { status: 500, body: { error: String(error) } });
          else res.destroy();
        });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  fake.url = `http://${address.address}:${address.port}`;
  return fake;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
