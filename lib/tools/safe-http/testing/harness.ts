/** Shared set-up for the fetcher's tests: the loopback-only guard, server clean-up, scripted resolvers. */
import type http from "node:http";
import type net from "node:net";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { FetchError } from "../errors";
import type { Resolver } from "../resolve-hop";
import { type LocalServer, startHttpServer, startRawServer } from "./local-server";
import { installLoopbackGuard, type LoopbackGuard } from "./loopback-guard";

/** Installs the loopback guard for the file and fails any test that tried to leave loopback. */
export function guardLoopbackOnly(): void {
  let guard: LoopbackGuard | undefined;
  beforeAll(() => {
    guard = installLoopbackGuard();
  });
  afterEach(() => {
    expect(guard?.violations ?? []).toEqual([]);
  });
  afterAll(() => guard?.restore());
}

/** Servers started through these helpers are closed after each test. */
export function localServersPerTest() {
  const open: LocalServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  return {
    async http(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<LocalServer> {
      const server = await startHttpServer(handler);
      open.push(server);
      return server;
    },
    async raw(onConnection: (socket: net.Socket) => void): Promise<LocalServer> {
      const server = await startRawServer(onConnection);
      open.push(server);
      return server;
    },
  };
}

/** The FetchError a fetch rejected with; fails the test if it succeeded or threw anything else. */
export async function fetchError(promise: Promise<unknown>): Promise<FetchError> {
  const outcome = await promise.then(
    () => new Error("the fetch succeeded"),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(FetchError);
  return outcome as FetchError;
}

/** A resolver that answers from a table and records every question; unknown names fail like ENOTFOUND. */
export function scriptedResolver(table: Record<string, string[] | (() => string[])>) {
  const asked: string[] = [];
  const resolver: Resolver = async (hostname) => {
    asked.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    const answers = typeof entry === "function" ? entry() : entry;
    return answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolver, asked };
}

export const MB = 1024 * 1024;
