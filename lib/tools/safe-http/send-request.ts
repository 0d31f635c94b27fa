/**
 * One HTTP request to one already-validated address. The socket connects to that address and no
 * other: Node is handed a `lookup` that answers with it (so nothing re-resolves the name, closing the
 * DNS-rebinding window) while the URL's hostname stays in Host and in TLS SNI / certificate checks.
 */
import type { LookupAddress, LookupOptions } from "node:dns";
import { type ClientRequest, request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { FetchError, seconds } from "./errors";
import { parseIpLiteral } from "./ip-policy";

export interface RequestTarget {
  url: URL;
  /** Bare hostname or canonical IP, as in the URL. */
  host: string;
  port: number;
  address: string;
  family: 4 | 6;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

export interface SendOptions {
  /** Aborted by the caller's signal or the total timeout; destroys the request at once. */
  signal: AbortSignal;
  /** Time left for the TCP (and TLS) connection of this hop. */
  connectTimeoutMs: number;
  /** Set to true once the socket is connected: failures after that must not be retried elsewhere. */
  progress: { connected: boolean };
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export function sendRequest(target: RequestTarget, options: SendOptions): Promise<IncomingMessage> {
  const { url, host, port, address, family } = target;
  const https = url.protocol === "https:";
  const isLiteral = parseIpLiteral(host) !== null;

  const pinnedLookup = (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback) => {
    if (hostname !== host) {
      callback(Object.assign(new Error(`unexpected DNS lookup for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
    } else if (lookupOptions.all) {
      callback(null, [{ address, family }]);
    } else {
      callback(null, address, family);
    }
  };

  return new Promise<IncomingMessage>((resolve, reject) => {
    const { signal } = options;
    if (signal.aborted) return reject(signal.reason);

    let request: ClientRequest;
    try {
      request = (https ? httpsRequest : httpRequest)({
        protocol: url.protocol,
        // A literal is connected to as is (Node never looks it up); a name goes through the pinned lookup.
        hostname: isLiteral ? address : host,
        port,
        path: `${url.pathname}${url.search}`,
        method: target.method,
        headers: target.headers,
        lookup: pinnedLookup as never,
        agent: false,
        ...(https && !isLiteral ? { servername: host.replace(/\.+$/, "") } : {}),
      });
    } catch (error) {
      return reject(error);
    }

    const onAbort = () => request.destroy(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    request.once("close", () => {
      clearTimeout(connectTimer);
      signal.removeEventListener("abort", onAbort);
    });

    const connectTimer = setTimeout(
      () => {
        request.destroy(new FetchError("failed", `connect timed out after ${seconds(options.connectTimeoutMs)}`));
      },
      Math.max(0, options.connectTimeoutMs),
    );

    request.once("socket", (socket) => {
      socket.once(https ? "secureConnect" : "connect", () => {
        clearTimeout(connectTimer);
        options.progress.connected = true;
        // Belt and braces: the peer must be the address that was validated.
        const peer = socket.remoteAddress ? parseIpLiteral(socket.remoteAddress)?.address : undefined;
        if (peer !== undefined && peer !== address) {
          request.destroy(new FetchError("blocked", `connected to ${peer} instead of the validated ${address}`));
        }
      });
    });
    // Stays attached for the request's whole life: a late socket error must never become an uncaught 'error'.
    request.on("error", (error) => reject(error));
    request.once("response", (response) => {
      clearTimeout(connectTimer);
      resolve(response);
    });
    request.end(target.body);
  });
}
