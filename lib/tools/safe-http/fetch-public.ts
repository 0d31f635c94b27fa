/**
 * `fetchPublic`: the SSRF-safe HTTP client every tool uses. Per hop: check the URL, resolve
 * the name once, refuse if any answer is not global unicast, connect to the validated address only,
 * follow redirects by starting over, and read the body under the size limit. The caller's abort
 * rejects with the caller's reason; every other failure is a `FetchError`.
 */
import type { IncomingMessage } from "node:http";
import { FetchError, seconds, toFetchError } from "./errors";
import { defaultResolver, type Resolver, resolveHop } from "./resolve-hop";
import { parseContentType, readLimitedBody } from "./response-body";
import { type RequestTarget, sendRequest } from "./send-request";
import { type InspectedUrl, inspectUrl } from "./url-policy";

export const USER_AGENT = "ollama-web/0.1 (+research assistant)";

export interface ConnectTarget {
  address: string;
  family: 4 | 6;
  port: number;
  hostname: string;
  protocol: "http:" | "https:";
}

export interface FetchPublicOptions {
  /** Limit on Content-Length and on the bytes read after decompression. */
  maxBytes: number;
  /** FETCH_ALLOW_PRIVATE entries ("host:port"): the address policy is skipped for a hop whose URL matches. */
  allowPrivate?: string[];
  signal?: AbortSignal;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** Requests in the whole chain, the first one included. */
  maxRequests?: number;
  method?: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
  resolver?: Resolver;
  /** Test hook: called with the validated address just before each connection attempt. */
  connect?: (target: ConnectTarget) => void;
}

export interface FetchedResource {
  /** Final URL after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  /** Raw Content-Type header, or "". */
  contentType: string;
  /** Lowercased type/subtype without parameters, or "". */
  mime: string;
  charset: string | null;
  bytes: Buffer;
}

const DEFAULTS = { connectTimeoutMs: 10_000, totalTimeoutMs: 30_000, maxRequests: 6 };
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers the fetcher owns: framing, the connection, Host (the validated URL's) and the encodings it can decode. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "expect",
  "accept-encoding",
]);
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];
/** Connection failures after which the next validated address of the same name is worth a try. */
const TRY_NEXT_ADDRESS = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "EAFNOSUPPORT"]);

export async function fetchPublic(url: string, options: FetchPublicOptions): Promise<FetchedResource> {
  if (!(Number.isFinite(options.maxBytes) && options.maxBytes > 0)) throw new TypeError("maxBytes must be positive");
  const totalTimeoutMs = options.totalTimeoutMs ?? DEFAULTS.totalTimeoutMs;
  const caller = options.signal;
  caller?.throwIfAborted();

  // One controller for the whole chain: the caller's Stop and the total timeout both end up here.
  const chain = new AbortController();
  const state = { url };
  const onCallerAbort = () => chain.abort(caller?.reason);
  caller?.addEventListener("abort", onCallerAbort, { once: true });
  const timer = setTimeout(() => {
    chain.abort(new FetchError("failed", `timed out after ${seconds(totalTimeoutMs)}`, { url: state.url }));
  }, totalTimeoutMs);
  try {
    return await followChain(url, options, chain.signal, state);
  } catch (error) {
    if (chain.signal.aborted) throw chain.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener("abort", onCallerAbort);
  }
}

async function followChain(
  url: string,
  options: FetchPublicOptions,
  signal: AbortSignal,
  state: { url: string },
): Promise<FetchedResource> {
  const maxRequests = options.maxRequests ?? DEFAULTS.maxRequests;
  let next: string | URL = url;
  let method = options.method ?? "GET";
  let body = method === "POST" ? (options.body ?? "") : undefined;
  let headers = requestHeaders(options.headers, body);

  for (let count = 1; ; count++) {
    const role = count === 1 ? "request" : "redirect";
    const hopUrl = typeof next === "string" ? next : next.href;
    state.url = hopUrl;
    if (count > maxRequests) {
      throw new FetchError("failed", `too many redirects (more than ${maxRequests} requests)`, { url: hopUrl });
    }
    const hop = inspectUrl(next, options.allowPrivate ?? [], role);
    if (!hop.ok) throw new FetchError(hop.kind, hop.reason, { url: hopUrl });

    const response = await connectHop(hop, { method, headers, body }, options, signal);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;

    if (REDIRECTS.has(status) && location !== undefined) {
      response.destroy(); // a redirect's body is never read
      let target: URL;
      try {
        target = new URL(location, hop.url);
      } catch {
        throw new FetchError("failed", "redirect Location is not a valid URL", { url: hopUrl });
      }
      if (target.hash === "" && hop.url.hash !== "") target.hash = hop.url.hash;
      if (method === "POST" && (status === 307 || status === 308)) {
        throw new FetchError("failed", `refusing to resend a POST body after a ${status} redirect`, {
          url: target.href,
        });
      }
      if (method === "POST") {
        // 301/302/303 after POST become GET without a body, as browsers do.
        method = "GET";
        body = undefined;
        headers = withoutHeaders(headers, ["content-type", "content-length"]);
      }
      if (target.origin !== hop.url.origin) headers = withoutHeaders(headers, CREDENTIAL_HEADERS);
      next = target;
      continue;
    }

    if (status < 200 || status > 299) {
      response.destroy();
      throw new FetchError("failed", `HTTP ${status}`, { url: hopUrl, status });
    }
    const bytes = await readLimitedBody(response, options.maxBytes, hopUrl);
    return {
      url: hop.url.href,
      status,
      headers: flatHeaders(response),
      ...parseContentType(response.headers["content-type"]),
      bytes,
    };
  }
}

type ValidHop = Extract<InspectedUrl, { ok: true }>;

/** Resolves the hop once, validates every answer, and connects to the validated addresses in order. */
async function connectHop(
  hop: ValidHop,
  request: Pick<RequestTarget, "method" | "headers" | "body">,
  options: FetchPublicOptions,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs;
  const deadline = Date.now() + connectTimeoutMs;
  const addresses = hop.literal
    ? [hop.literal]
    : await resolveHop(hop, options.resolver ?? defaultResolver, signal, connectTimeoutMs);
  const hostHeader = hop.url.host;

  for (const [index, { address, family }] of addresses.entries()) {
    options.connect?.({
      address,
      family,
      port: hop.port,
      hostname: hop.host,
      protocol: hop.url.protocol as ConnectTarget["protocol"],
    });
    const progress = { connected: false };
    try {
      return await sendRequest(
        {
          ...request,
          url: hop.url,
          host: hop.host,
          port: hop.port,
          address,
          family,
          headers: { host: hostHeader, ...request.headers },
        },
        { signal, connectTimeoutMs: deadline - Date.now(), progress },
      );
    } catch (error) {
      const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
      const last = index === addresses.length - 1;
      if (signal.aborted || last || progress.connected || !TRY_NEXT_ADDRESS.has(code))
        throw toFetchError(error, hop.url.href);
    }
  }
  throw new FetchError("failed", `could not resolve ${hop.host}`, { url: hop.url.href });
}

function requestHeaders(extra: Record<string, string> | undefined, body: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { "user-agent": USER_AGENT, accept: "*/*" };
  for (const [name, value] of Object.entries(extra ?? {})) {
    const key = name.toLowerCase();
    if (!RESERVED_HEADERS.has(key)) headers[key] = value;
  }
  headers["accept-encoding"] = "gzip, deflate, br";
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  return headers;
}

function withoutHeaders(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
}

function flatHeaders(response: IncomingMessage): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}
