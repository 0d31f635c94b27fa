import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configSchema } from "@/lib/env-config";
import {
  appServer,
  type Directive,
  loadSite,
  mainConfig,
  nginxTest,
  type RunningNginx,
  redirectServer,
  renderNginxConfig,
  requireNginx,
  startNginx,
} from "./support/nginx";

/**
 * deploy/nginx/ollama-web.conf. Streaming through it in front of the real app is e2e/nginx.spec.ts;
 * here: what the file says, that nginx accepts it as shipped, and what the app receives through it.
 */

const find = (block: Directive[], name: string) => block.filter((d) => d.name === name);
const args = (block: Directive[], name: string) => find(block, name).map((d) => d.args.join(" "));

function sizeInMb(value: string): number {
  const match = /^(\d+)([km]?)$/i.exec(value);
  if (!match) throw new Error(`unexpected size ${value}`);
  const unit = match[2]?.toLowerCase();
  return Number(match[1]) / (unit === "m" ? 1 : unit === "k" ? 1024 : 1024 * 1024);
}

describe("the nginx site as written", () => {
  const site = loadSite();
  const server = appServer(site);

  it("proxies to the app on 127.0.0.1:3000 with reused HTTP/1.1 connections", () => {
    const upstream = find(site, "upstream")[0];
    expect(upstream?.args).toEqual(["ollama_web"]);
    expect(args(upstream?.block ?? [], "server")).toEqual(["127.0.0.1:3000"]);
    expect(find(upstream?.block ?? [], "keepalive")).toHaveLength(1);
    expect(args(server, "proxy_http_version")).toEqual(["1.1"]);
    expect(args(server, "proxy_set_header")).toContain('Connection ""');
  });

  it("keeps both SSE routes unbuffered, uncached, uncompressed and open for an hour", () => {
    const sse = find(server, "location").find((d) => d.args[0] === "~");
    expect(sse).toBeDefined();
    const pattern = new RegExp(sse?.args[1] ?? "$^");
    for (const route of ["/api/chat", "/api/runs/3f1c0a2e-0000-4000-8000-000000000000/events"]) {
      expect(pattern.test(route), route).toBe(true);
    }
    for (const route of ["/api/chats", "/api/conversations", "/api/runs/x/events/more"]) {
      expect(pattern.test(route), route).toBe(false);
    }
    const block = sse?.block ?? [];
    expect(args(block, "proxy_pass")).toEqual(["http://ollama_web"]);
    expect(args(block, "proxy_buffering")).toEqual(["off"]);
    expect(args(block, "proxy_cache")).toEqual(["off"]);
    expect(args(block, "proxy_read_timeout")).toEqual(["1h"]);
    expect(args(block, "chunked_transfer_encoding")).toEqual(["on"]);
    expect(args(block, "gzip")).toEqual(["off"]);
    // A proxy_set_header here would silently drop the server's forwarded headers for SSE.
    expect(find(block, "proxy_set_header")).toEqual([]);
  });

  it("accepts uploads as large as the app does, multipart envelope included", () => {
    const limit = sizeInMb(args(server, "client_max_body_size")[0] ?? "1m");
    const appLimit = configSchema.shape.MAX_FETCH_MB.parse(undefined);
    expect(limit).toBeGreaterThan(appLimit);
    expect(limit).toBeLessThanOrEqual(appLimit * 2);
  });

  it("accepts an import as large as IMPORT_MAX_MB on the import route only", () => {
    const route = find(server, "location").find((d) => d.args.join(" ") === "= /api/conversations/import");
    const limit = sizeInMb(args(route?.block ?? [], "client_max_body_size")[0] ?? "1m");
    const appLimit = configSchema.shape.IMPORT_MAX_MB.parse(undefined);
    expect(limit).toBeGreaterThan(appLimit);
    expect(limit).toBeLessThanOrEqual(appLimit * 2);
    expect(args(route?.block ?? [], "proxy_pass")).toEqual(["http://ollama_web"]);
    expect(find(route?.block ?? [], "proxy_set_header")).toEqual([]);
  });

  it("redirects plain HTTP to HTTPS except for Let's Encrypt's challenge", () => {
    const redirect = redirectServer(site);
    const locations = find(redirect, "location");
    expect(locations.map((d) => d.args.join(" "))).toEqual(["/.well-known/acme-challenge/", "/"]);
    expect(args(locations[1]?.block ?? [], "return")).toEqual(["301 https://$host$request_uri"]);
    expect(args(server, "ssl_certificate")[0]).toMatch(/^\/etc\/letsencrypt\/live\/[^/]+\/fullchain\.pem$/);
  });
});

describe("nginx running the site", () => {
  beforeAll(() => requireNginx());

  it("accepts the site file as shipped, TLS and HTTP/2 included (nginx -t, a throwaway certificate)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-nginx-t-"));
    try {
      const cert = path.join(dir, "cert.pem");
      const key = path.join(dir, "key.pem");
      const openssl = spawnSync(
        "openssl",
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=chat.example.org"].concat([
          "-keyout",
          key,
          "-out",
          cert,
        ]),
        { encoding: "utf8" },
      );
      expect(openssl.status, openssl.stderr).toBe(0);
      const site = loadSite().map((directive) =>
        directive.name === "server" && directive.block
          ? {
              ...directive,
              block: directive.block.map((d) =>
                d.name === "ssl_certificate"
                  ? { ...d, args: [cert] }
                  : d.name === "ssl_certificate_key"
                    ? { ...d, args: [key] }
                    : d,
              ),
            }
          : directive,
      );
      const configFile = path.join(dir, "nginx.conf");
      fs.writeFileSync(configFile, mainConfig(dir, renderNginxConfig(site)));
      const result = await nginxTest(configFile, `${dir}/`);
      expect(result.output).toContain("test is successful");
      expect(result.code).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe("in front of an app that echoes what it receives", () => {
    interface Seen {
      headers: http.IncomingHttpHeaders;
      httpVersion: string;
      socketPort: number | undefined;
      bodyBytes: number;
    }
    const seen: Seen[] = [];
    let echo: http.Server;
    let nginx: RunningNginx;

    beforeAll(async () => {
      echo = http.createServer((request, response) => {
        let bodyBytes = 0;
        request.on("data", (chunk: Buffer) => {
          bodyBytes += chunk.length;
        });
        request.on("end", () => {
          seen.push({
            headers: request.headers,
            httpVersion: request.httpVersion,
            socketPort: request.socket.remotePort,
            bodyBytes,
          });
          response.writeHead(200, { "content-type": "application/json" }).end("{}");
        });
      });
      await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
      nginx = await startNginx({ upstreams: [`127.0.0.1:${(echo.address() as AddressInfo).port}`] });
    });

    afterAll(async () => {
      await nginx?.stop();
      echo?.closeAllConnections();
      await new Promise((resolve) => echo?.close(resolve));
    });

    it("passes Host, the browser's origin and the client's real address, replacing a forged X-Forwarded-For", async () => {
      seen.length = 0;
      const port = new URL(nginx.url).port;
      const response = await fetch(`${nginx.url}/api/conversations?q=x`, {
        headers: { "X-Forwarded-For": "203.0.113.7", "X-Real-IP": "203.0.113.7" },
      });
      expect(response.status).toBe(200);
      const [request] = seen;
      expect(request?.headers.host).toBe("127.0.0.1");
      expect(request?.headers["x-forwarded-host"]).toBe(`127.0.0.1:${port}`);
      expect(request?.headers["x-forwarded-proto"]).toBe("http");
      expect(request?.headers["x-forwarded-for"]).toBe("127.0.0.1");
      expect(request?.headers["x-real-ip"]).toBe("127.0.0.1");
    });

    it("reuses one upstream connection over HTTP/1.1 for successive requests", async () => {
      seen.length = 0;
      for (let i = 0; i < 3; i++) expect((await fetch(`${nginx.url}/api/health`)).status).toBe(200);
      expect(seen.map((request) => request.httpVersion)).toEqual(["1.1", "1.1", "1.1"]);
      expect(seen.map((request) => request.headers.connection)).toEqual([undefined, undefined, undefined]);
      expect(new Set(seen.map((request) => request.socketPort)).size).toBe(1);
    });

    it("lets an upload of the app's maximum size through and stops a larger one at nginx", async () => {
      seen.length = 0;
      const appLimitBytes = configSchema.shape.MAX_FETCH_MB.parse(undefined) * 1024 * 1024;
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(appLimitBytes)]), "max.pdf");
      const allowed = await fetch(`${nginx.url}/api/conversations/c/files`, { method: "POST", body: form });
      expect(allowed.status).toBe(200);
      expect(seen[0]?.bodyBytes).toBeGreaterThan(appLimitBytes);

      const tooLarge = await fetch(`${nginx.url}/api/conversations/c/files`, {
        method: "POST",
        body: new Uint8Array(13 * 1024 * 1024),
      });
      expect(tooLarge.status).toBe(413);
      expect(seen).toHaveLength(1);
    });
  });
});
