/**
 * Tests never open a connection to anything but loopback. This wraps `net.Socket#connect`
 * for the duration of a test file so that, even if the guard under test were broken, a connection to
 * any other address fails before a packet leaves the machine — and is recorded so the test fails.
 */
import type { LookupAddress } from "node:dns";
import net from "node:net";

type AnyFunction = (...args: unknown[]) => unknown;

export interface LoopbackGuard {
  /** Every non-loopback connection that was attempted (and stopped). */
  violations: string[];
  restore(): void;
}

export function installLoopbackGuard(): LoopbackGuard {
  const violations: string[] = [];
  const original = net.Socket.prototype.connect;

  const isLoopback = (address: string) => {
    const bare = address.replace(/^\[|\]$/g, "");
    return bare === "::1" || (net.isIPv4(bare) && bare.startsWith("127."));
  };
  const refuse = (target: string) => {
    violations.push(target);
    return Object.assign(new Error(`loopback guard: refused connection to ${target}`), { code: "ELOOPBACKGUARD" });
  };

  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    // net.createConnection passes one normalized [options, callback] array; tls passes (options, callback).
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as Record<string, unknown> | undefined;
    if (options && typeof options === "object" && typeof options.path !== "string") {
      const host = String(options.host ?? "localhost");
      if (net.isIP(host.replace(/^\[|\]$/g, ""))) {
        if (!isLoopback(host)) throw refuse(host);
      } else if (typeof options.lookup === "function") {
        const lookup = options.lookup as AnyFunction;
        options.lookup = (hostname: string, lookupOptions: unknown, callback: AnyFunction) =>
          lookup(hostname, lookupOptions, (error: unknown, address: string | LookupAddress[], family?: number) => {
            const answers = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
            const outside = answers.find((answer) => answer && !isLoopback(answer));
            if (!error && outside) callback(refuse(`${hostname} → ${outside}`));
            else callback(error, address, family);
          });
      } else {
        // A name with no pinned lookup would go to the system resolver: not something these tests do.
        throw refuse(`${host} (system DNS)`);
      }
    }
    return (original as AnyFunction).apply(this, args);
  } as typeof original;

  return {
    violations,
    restore() {
      net.Socket.prototype.connect = original;
    },
  };
}
