/**
 * The URL half of the SSRF guard: scheme, userinfo, localhost names and literal IPs in any
 * notation, plus the `FETCH_ALLOW_PRIVATE` escape hatch. DNS answers are checked by the fetcher.
 */
import { classifyAddress, type IpAddress, parseIpLiteral } from "./ip-policy";

export type UrlCheck = { ok: true; url: URL } | { ok: false; kind: "invalid_url" | "blocked"; reason: string };

/** The first request names "the URL"; later hops are "the redirect target" in every reason. */
export type HopRole = "request" | "redirect";

export type InspectedUrl =
  | {
      ok: true;
      url: URL;
      /** Host as a bare name or canonical IP (no brackets). */
      host: string;
      port: number;
      /** Set when the host is an IP literal: no DNS lookup happens for this hop. */
      literal: IpAddress | null;
      /** The hop matched an allowPrivate entry: the address policy is skipped for it. */
      allowListed: boolean;
      role: HopRole;
    }
  | { ok: false; kind: "invalid_url" | "blocked"; reason: string };

/** Syntax-level checks of a URL to be fetched. DNS answers are checked later, by `fetchPublic`. */
export function checkUrl(url: string, allowPrivate: string[] = []): UrlCheck {
  const inspected = inspectUrl(url, allowPrivate, "request");
  return inspected.ok ? { ok: true, url: inspected.url } : inspected;
}

export function inspectUrl(input: string | URL, allowPrivate: readonly string[], role: HopRole): InspectedUrl {
  const redirect = role === "redirect";
  if (typeof input === "string" && input.trim() === "") {
    return { ok: false, kind: "invalid_url", reason: redirect ? "redirect Location is empty" : "URL is empty" };
  }
  let url: URL;
  try {
    url = typeof input === "string" ? new URL(input) : new URL(input.href);
  } catch {
    const reason = redirect ? "redirect Location is not a valid URL" : "not a valid absolute URL";
    return { ok: false, kind: "invalid_url", reason };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    const reason = redirect
      ? `redirect target uses ${url.protocol}, only http and https are allowed`
      : `only http and https URLs are allowed, not ${url.protocol}`;
    return { ok: false, kind: "blocked", reason };
  }
  if (url.username !== "" || url.password !== "") {
    const reason = redirect
      ? "redirect target contains credentials (user@host)"
      : "URLs with credentials (user@host) are not allowed";
    return { ok: false, kind: "blocked", reason };
  }

  const rawHost = url.hostname;
  const literal = parseIpLiteral(rawHost);
  const host = literal ? literal.address : rawHost;
  const port = url.port === "" ? defaultPort(url.protocol) : Number(url.port);
  const allowListed = matchesAllowList(host, port, allowPrivate);
  if (allowListed) return { ok: true, url, host, port, literal, allowListed, role };

  if (!literal && isLocalhostName(host)) {
    return {
      ok: false,
      kind: "blocked",
      reason: redirect ? "redirect target is localhost" : "localhost is not allowed",
    };
  }
  if (literal) {
    const verdict = classifyAddress(literal.address);
    if (!verdict.global) {
      const subject = redirect ? "redirect target" : "host";
      return { ok: false, kind: "blocked", reason: `${subject} is ${verdict.description} (${literal.address})` };
    }
  }
  return { ok: true, url, host, port, literal, allowListed, role };
}

/**
 * `FETCH_ALLOW_PRIVATE` entries are "host:port" ("127.0.0.1:8080", "[::1]:7000", "fake-web:80").
 * An entry matches the hostname as written in the URL (lowercase, trailing dot ignored) or the
 * canonical form of its IP literal, and the URL's port with 80/443 filled in. Entries without a port never match.
 */
export function matchesAllowList(host: string, port: number, allowPrivate: readonly string[]): boolean {
  const wanted = normaliseHost(host);
  return allowPrivate.some((entry) => {
    const parsed = parseAllowEntry(entry);
    return parsed !== null && parsed.port === port && parsed.host === wanted;
  });
}

function parseAllowEntry(entry: string): { host: string; port: number } | null {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(entry.trim().toLowerCase());
  if (!match) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return null;
  return { host: normaliseHost(match[1]!), port };
}

function normaliseHost(host: string): string {
  const literal = parseIpLiteral(host);
  return literal ? literal.address : host.toLowerCase().replace(/\.+$/, "");
}

/** `localhost`, `LOCALHOST.`, `foo.localhost`: RFC 6761 names that always mean this machine. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

function defaultPort(protocol: string): number {
  return protocol === "https:" ? 443 : 80;
}
