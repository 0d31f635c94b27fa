import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Fake web and search servers on loopback: HTML pages in several charsets, files, a
 * DuckDuckGo-shaped HTML endpoint and a SearXNG JSON endpoint. Tests allow it with
 * FETCH_ALLOW_PRIVATE, never by weakening the guard.
 */

export interface FakeWebRoute {
  /** Accept the request and never answer (a server that hangs). */
  hang?: boolean;
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer | ((req: IncomingMessage, requestBody: string) => string | Buffer);
}

export interface FakeWeb {
  url: string;
  /** "127.0.0.1:<port>" for FETCH_ALLOW_PRIVATE. */
  hostPort: string;
  routes: Map<string, FakeWebRoute>;
  requests: { method: string; path: string; body: string }[];
  close(): Promise<void>;
}

// "日本語のページ" in Shift_JIS; Node's TextEncoder only writes UTF-8.
export const SHIFT_JIS_JAPANESE = Buffer.from([
  0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x82, 0xcc, 0x83, 0x79, 0x81, 0x5b, 0x83, 0x57,
]);
export const JAPANESE_TEXT = "日本語のページ";

export function duckDuckGoPage(results: { title: string; href: string; snippet: string; ad?: boolean }[]): string {
  const items = results
    .map(
      (r) => `<div class="result results_links web-result${r.ad ? " result--ad" : ""}">
  <h2 class="result__title"><a rel="nofollow" class="result__a" href="${
    r.ad
      ? `https://duckduckgo.com/y.js?ad_domain=ads.example&u3=${encodeURIComponent(r.href)}`
      : `//duckduckgo.com/l/?uddg=${encodeURIComponent(r.href)}&amp;rut=abc123`
  }">${r.title}</a></h2>
  <a class="result__snippet" href="#">${r.snippet}</a>
</div>`,
    )
    .join("\n");
  return `<!DOCTYPE html><html><head><title>DuckDuckGo</title></head><body><div id="links" class="results">${items}</div></body></html>`;
}

export const DDG_CHALLENGE_PAGE =
  '<html><body><div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div><form id="challenge-form"></form></body></html>';

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startFakeWeb(routes: Record<string, FakeWebRoute> = {}): Promise<FakeWeb> {
  const table = new Map(Object.entries(routes));
  const requests: FakeWeb["requests"] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const path = new URL(req.url ?? "/", "http://x").pathname;
    requests.push({ method: req.method ?? "GET", path: req.url ?? "/", body });
    const route = table.get(path);
    if (!route) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    if (route.hang) return;
    const content = typeof route.body === "function" ? route.body(req, body) : (route.body ?? "");
    res.writeHead(route.status ?? 200, { "content-type": "text/html; charset=utf-8", ...route.headers });
    res.end(content);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    routes: table,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
