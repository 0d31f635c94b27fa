/**
 * DNS for one hop of `fetchPublic`: the name is resolved once, every answer must be global unicast
 * (unless the hop is allow-listed), and only these validated addresses are ever connected to.
 */
import { promises as dns } from "node:dns";
import { FetchError, seconds } from "./errors";
import { classifyAddress, type IpAddress, parseIpLiteral } from "./ip-policy";
import type { InspectedUrl } from "./url-policy";

export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

type ValidHop = Extract<InspectedUrl, { ok: true }>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), answers in the system's order. */
export const defaultResolver: Resolver = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** One DNS resolution per hop; the hop is refused if any answer is not global (unless allow-listed). */
export async function resolveHop(
  hop: ValidHop,
  resolver: Resolver,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<IpAddress[]> {
  const url = hop.url.href;
  let answers: unknown;
  const timedOut = () =>
    new FetchError("failed", `DNS lookup of ${hop.host} timed out after ${seconds(timeoutMs)}`, { url });
  try {
    answers = await withDeadline(
      Promise.resolve().then(() => resolver(hop.host)),
      signal,
      timeoutMs,
      timedOut,
    );
  } catch (error) {
    if (signal.aborted || error instanceof FetchError) throw error;
    const code = typeof error === "object" && error !== null && "code" in error ? ` (${String(error.code)})` : "";
    throw new FetchError("failed", `could not resolve ${hop.host}${code}`, { url, cause: error });
  }

  const addresses: IpAddress[] = [];
  for (const answer of Array.isArray(answers) ? answers : []) {
    const ip = parseIpLiteral(String((answer as { address?: unknown })?.address));
    if (!ip) throw new FetchError("failed", `DNS returned an invalid address for ${hop.host}`, { url });
    if (!addresses.some((known) => known.address === ip.address)) addresses.push(ip);
  }
  if (addresses.length === 0) throw new FetchError("failed", `could not resolve ${hop.host}`, { url });
  if (!hop.allowListed) {
    for (const ip of addresses) {
      const verdict = classifyAddress(ip.address);
      if (!verdict.global) {
        const subject = hop.role === "redirect" ? `redirect target ${hop.host}` : hop.host;
        throw new FetchError("blocked", `${subject} resolves to ${verdict.description} (${ip.address})`, { url });
      }
    }
  }
  return addresses;
}

function withDeadline<T>(promise: Promise<T>, signal: AbortSignal, ms: number, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => finish(() => reject(onTimeout())), Math.max(0, ms));
    const onAbort = () => finish(() => reject(signal.reason));
    signal.addEventListener("abort", onAbort, { once: true });
    function finish(settle: () => void) {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      settle();
    }
    promise.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}
