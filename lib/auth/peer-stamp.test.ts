import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPeerStamp, PEER_HEADER } from "./peer-stamp.mjs";

// A server made before the stamp is installed, as Next.js makes its own before instrumentation runs.
let seen: { headers: http.IncomingHttpHeaders; rawHeaders: string[] }[] = [];
const server = http.createServer((request, response) => {
  seen.push({ headers: request.headers, rawHeaders: request.rawHeaders });
  response.end("ok");
});
let port = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  installPeerStamp();
  installPeerStamp();
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(headers: http.OutgoingHttpHeaders): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, path: "/", headers }, (response) => {
      response.resume();
      response.on("end", resolve);
    });
    request.on("error", reject);
    request.end();
  });
}

describe("peer stamp", () => {
  it("stamps the TCP peer's address on every request, replacing any copy the client sent", async () => {
    seen = [];
    await get({});
    await get({ [PEER_HEADER]: ["198.51.100.7", "198.51.100.8"] });
    await get({ [PEER_HEADER.toUpperCase()]: "198.51.100.9" });
    expect(seen).toHaveLength(3);
    for (const { headers, rawHeaders } of seen) {
      expect(headers[PEER_HEADER]).toBe("127.0.0.1");
      const raw = rawHeaders.filter((_, i) => i % 2 === 0 && rawHeaders[i]?.toLowerCase() === PEER_HEADER);
      expect(raw).toHaveLength(1);
      expect(rawHeaders.join("\n")).not.toMatch(/198\.51\.100/);
    }
  });
});
