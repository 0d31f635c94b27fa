// The TCP peer's address for route handlers. Next.js hands a route a web Request without its socket,
// so the server stamps the peer into a header the moment Node parses a request; any copy a client
// sent is removed first, so the header can only come from here (docs/security.md).
//
// Plain JavaScript so that `npm start` can preload it (node --import) before Next.js creates its
// HTTP server; instrumentation.ts installs it too, for `next start` and `next dev`.
import http from "node:http";
import https from "node:https";

export const PEER_HEADER = "x-ollama-web-peer";

const INSTALLED = Symbol.for("ollama-web.peer-stamp");
// Node emits a request under one of these names, with (request, response).
const REQUEST_EVENTS = new Set(["request", "checkContinue", "checkExpectation"]);

/** @param {import("node:http").IncomingMessage} request */
export function stampPeer(request) {
  const raw = request.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    if (raw[i]?.toLowerCase() === PEER_HEADER) raw.splice(i, 2);
  }
  const peer = request.socket?.remoteAddress ?? "";
  request.headers[PEER_HEADER] = peer;
  raw.push(PEER_HEADER, peer);
}

/** Stamps every request of every HTTP(S) server in this process; installing twice is harmless. */
export function installPeerStamp() {
  const state = /** @type {Record<symbol, boolean>} */ (/** @type {unknown} */ (globalThis));
  if (state[INSTALLED]) return;
  state[INSTALLED] = true;
  for (const prototype of [http.Server.prototype, https.Server.prototype]) {
    const emit = prototype.emit;
    /** @type {(this: import("node:net").Server, event: string | symbol, ...args: unknown[]) => boolean} */
    const stamped = function (event, ...args) {
      if (typeof event === "string" && REQUEST_EVENTS.has(event)) {
        stampPeer(/** @type {import("node:http").IncomingMessage} */ (args[0]));
      }
      return emit.call(this, event, ...args);
    };
    prototype.emit = stamped;
  }
}
