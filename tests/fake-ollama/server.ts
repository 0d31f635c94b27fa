// A fake Ollama server speaking the real wire format (see /work/shared/OLLAMA-PROTOCOL.md),
// driven by scripted replies and recording every request, for vitest and Playwright.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ChatEnv, handleChat, sendJson } from "./chat";
import { type ChatRequestBody, goSyntaxError } from "./decode";
import { DEFAULT_MODELS, type FakeModel, findModel, psEntry, showBody, tagsEntry } from "./models";
import { DEFAULT_REGISTRY, handlePull, layersOf, type PullEnv, type PullRegistry } from "./pull";
import { defaultReply, replyMatches, type ScriptedReply } from "./reply";

export type { ChatMessage, ChatRequestBody, ToolDefinition, WireToolCall } from "./decode";
export { DEFAULT_MODELS, type FakeModel } from "./models";
export { DEFAULT_REGISTRY, type PullRegistry } from "./pull";
export type { ReplyCondition, ScriptedReply, ScriptedToolCall } from "./reply";

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
  /** When the first body chunk went out (performance.timeOrigin + performance.now()), for latency benchmarks. */
  firstWriteAt?: number;
}

export interface FakeOllama {
  url: string;
  requests: RecordedRequest[];
  chatRequests(): RecordedRequest[];
  script(...replies: ScriptedReply[]): void;
  setModels(models: FakeModel[]): void;
  /** What `/api/pull` can fetch and how: speed, an unreachable registry, a full disk. */
  setRegistry(patch: Partial<PullRegistry>): void;
  setDefaultResponder(fn: (req: ChatRequestBody) => ScriptedReply): void;
  reset(): void;
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface FakeOllamaOptions {
  port?: number;
  host?: string;
  models?: FakeModel[];
  version?: string;
}

const CONTROL_PREFIX = "/__fake/";

export async function startFakeOllama(opts: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const initialModels = structuredClone(opts.models ?? DEFAULT_MODELS);
  const version = opts.version ?? "0.12.10";
  let models = structuredClone(initialModels);
  let responder: (req: ChatRequestBody) => ScriptedReply = defaultReply;
  let registry = structuredClone(DEFAULT_REGISTRY);
  let queue: ScriptedReply[] = [];
  const loaded = new Map<string, { expiresAt: number; numCtx: number }>();
  const requests: RecordedRequest[] = [];
  const listeners = new Set<() => void>();

  const chatEnv: ChatEnv = {
    models: () => models,
    takeReply(req) {
      const index = queue.findIndex((reply) => replyMatches(reply, req));
      if (index < 0) return responder(req);
      const [reply] = queue.splice(index, 1);
      return reply ?? responder(req);
    },
    markLoaded(model, keepAliveMs, numCtx) {
      const previous = loaded.get(model.name);
      loaded.set(model.name, {
        expiresAt: Date.now() + keepAliveMs,
        numCtx: numCtx ?? previous?.numCtx ?? 4096,
      });
    },
    unload: (model) => loaded.delete(model.name),
  };

  const pullEnv: PullEnv = {
    registry: () => registry,
    installed: () => models,
    install(model) {
      models = [...models.filter((m) => m.name !== model.name), model];
    },
    partial: new Map(),
  };

  const fake: FakeOllama = {
    url: "",
    requests,
    chatRequests: () => requests.filter((r) => r.path === "/api/chat"),
    script: (...replies) => queue.push(...replies),
    setModels(next) {
      models = structuredClone(next);
    },
    setRegistry(patch) {
      registry = { ...registry, ...structuredClone(patch) };
    },
    setDefaultResponder(fn) {
      responder = fn;
    },
    reset() {
      queue = [];
      requests.length = 0;
      loaded.clear();
      models = structuredClone(initialModels);
      registry = structuredClone(DEFAULT_REGISTRY);
      pullEnv.partial.clear();
      responder = defaultReply;
    },
    waitForRequests(n, timeoutMs = 5000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (fake.chatRequests().length < n) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          const got = fake.chatRequests().length;
          reject(new Error(`fake ollama: expected ${n} /api/chat requests within ${timeoutMs} ms, got ${got}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };

  async function route(req: IncomingMessage, res: ServerResponse, raw: string, signal: AbortSignal) {
    const method = req.method ?? "GET";
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    const key = `${method} ${path}`;
    if (path.startsWith(CONTROL_PREFIX)) return control(key, raw, res);
    switch (key) {
      case "GET /":
      case "HEAD /":
        res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
        return res.end(method === "HEAD" ? undefined : "Ollama is running");
      case "GET /api/version":
      case "HEAD /api/version":
        return sendJson(res, 200, { version });
      case "GET /api/tags":
      case "HEAD /api/tags":
        return sendJson(res, 200, { models: models.map(tagsEntry) });
      case "GET /api/ps":
        return sendJson(res, 200, { models: runningModels() });
      case "POST /api/show":
        return show(raw, res);
      case "DELETE /api/delete":
        return remove(raw, res);
      case "POST /api/pull":
        return handlePull(pullEnv, raw, res, signal);
      case "POST /api/chat":
        return handleChat(chatEnv, raw, res, signal);
      default:
        res.writeHead(404, { "Content-Type": "text/plain" });
        return res.end("404 page not found");
    }
  }

  function runningModels() {
    const nowMs = Date.now();
    return [...loaded.entries()]
      .filter(([, state]) => state.expiresAt > nowMs)
      .sort(([, a], [, b]) => b.expiresAt - a.expiresAt)
      .flatMap(([name, state]) => {
        const model = models.find((m) => m.name === name);
        return model ? [psEntry(model, state)] : [];
      });
  }

  function show(raw: string, res: ServerResponse) {
    if (raw.trim() === "") return sendJson(res, 400, { error: "missing request body" });
    const body = parseJson(raw);
    if (body === undefined) return sendJson(res, 400, { error: goSyntaxError(raw) });
    if (!isRecord(body) && body !== null) {
      const kind = Array.isArray(body) ? "array" : typeof body === "boolean" ? "bool" : typeof body;
      return sendJson(res, 400, { error: `json: cannot unmarshal ${kind} into Go value of type api.ShowRequest` });
    }
    const fields = body ?? {};
    const name = typeof fields.model === "string" && fields.model ? fields.model : fields.name;
    if (typeof name !== "string" || name === "") return sendJson(res, 400, { error: "model is required" });
    const model = findModel(models, name);
    if (!model) return sendJson(res, 404, { error: `model '${name}' not found` });
    return sendJson(res, 200, showBody(model));
  }

  /** `DELETE /api/delete {"model"}`: 200 with an empty body, 404 when no such model is installed. */
  function remove(raw: string, res: ServerResponse) {
    const body = parseJson(raw);
    const fields = isRecord(body) ? body : {};
    const name = typeof fields.model === "string" && fields.model ? fields.model : fields.name;
    if (typeof name !== "string" || name === "") return sendJson(res, 400, { error: "model is required" });
    const model = findModel(models, name);
    if (!model) return sendJson(res, 404, { error: `model '${name}' not found` });
    models = models.filter((m) => m !== model);
    loaded.delete(model.name);
    // Its blobs go with it (none is shared in the fake), so a later pull downloads them again.
    for (const layer of layersOf(model)) pullEnv.partial.delete(layer.digest);
    res.writeHead(200);
    return res.end();
  }

  function control(key: string, raw: string, res: ServerResponse) {
    const body = parseJson(raw);
    switch (key) {
      case "GET /__fake/requests":
        return sendJson(res, 200, requests);
      case "POST /__fake/reset":
        fake.reset();
        return sendJson(res, 200, { ok: true });
      case "POST /__fake/script": {
        const replies = isRecord(body) ? body.replies : undefined;
        if (!Array.isArray(replies) || !replies.every(isRecord)) {
          return sendJson(res, 400, { error: 'expected {"replies":[...]}' });
        }
        // `match` is a function and cannot come over the wire; `when` can.
        fake.script(...replies.map(({ match: _match, ...reply }) => reply as ScriptedReply));
        return sendJson(res, 200, { queued: queue.length });
      }
      case "POST /__fake/registry": {
        if (
          !isRecord(body) ||
          (body.models !== undefined && !(Array.isArray(body.models) && body.models.every(isFakeModel)))
        ) {
          return sendJson(res, 400, {
            error: 'expected {"models"?, "chunksPerLayer"?, "chunkDelayMs"?, "unreachable"?, "diskFreeBytes"?}',
          });
        }
        fake.setRegistry(body as Partial<PullRegistry>);
        return sendJson(res, 200, { ok: true });
      }
      case "POST /__fake/models": {
        const next = isRecord(body) ? body.models : undefined;
        if (!Array.isArray(next) || !next.every(isFakeModel)) {
          return sendJson(res, 400, {
            error: 'expected {"models":[{name,family,parameterSize,capabilities,contextLength}]}',
          });
        }
        fake.setModels(next);
        return sendJson(res, 200, { ok: true });
      }
      default:
        return sendJson(res, 404, { error: `unknown control endpoint ${key}` });
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
        const write = res.write.bind(res) as (...args: unknown[]) => boolean;
        res.write = ((...args: unknown[]) => {
          record.firstWriteAt ??= performance.timeOrigin + performance.now();
          return write(...args);
        }) as typeof res.write;
        res.on("finish", () => {
          record.finished = true;
        });
        res.on("close", () => {
          if (!res.writableFinished) record.aborted = true;
        });
        for (const listener of [...listeners]) listener();
      }
      res.on("close", () => {
        if (!res.writableFinished) aborter.abort();
      });
      route(req, res, raw, aborter.signal).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: String(error) });
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

function isFakeModel(value: unknown): value is FakeModel {
  return (
    isRecord(value) &&
    typeof value.name === "string" &&
    typeof value.family === "string" &&
    typeof value.parameterSize === "string" &&
    Array.isArray(value.capabilities) &&
    value.capabilities.every((c) => typeof c === "string") &&
    typeof value.contextLength === "number"
  );
}
