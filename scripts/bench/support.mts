// Shared by the benchmarks: a production server on a free loopback port, and small statistics.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { readSse, type SseMessage } from "@/lib/client/sse";
import { startAppCluster } from "@/tests/support/app-cluster";
import { startThrowawayPostgres } from "@/tests/support/throwaway-postgres";
import { ensureBuild } from "../ensure-build.mjs";

/** The kernel's USER_HZ, the unit of /proc/<pid>/stat's CPU times (100 on Linux). */
const CLOCK_TICKS_PER_S = 100;

export const clock = () => performance.timeOrigin + performance.now();
export const fmt = (n: number, digits = 1) => n.toFixed(digits);

const LAG_RESOLUTION_MS = 10;

/**
 * What a figure was measured under, printed next to it: the machine's load average, and how late
 * this process's own event loop ran (its clients and the fake model share it, so a late loop here
 * shows up as server latency). `summary()` ends the measurement.
 */
export function watchConditions(): { summary(): string } {
  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  lag.enable();
  const loadBefore = os.loadavg()[0] ?? 0;
  // The histogram holds whole timer intervals: the delay is what exceeds the interval.
  const late = (ns: number) => fmt(Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS));
  return {
    summary() {
      lag.disable();
      return `load average ${fmt(loadBefore)} → ${fmt(os.loadavg()[0] ?? 0)}; this process's event loop late by p50 ${late(lag.percentile(50))} ms, p99 ${late(lag.percentile(99))} ms, max ${late(lag.max)} ms`;
    },
  };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** The server's event-loop delay and its main thread's garbage-collection pauses, in ms. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  /** `kind`: the longest pause's collector (1 scavenge, 2 mark-compact, 4 incremental marking, 8 weak callbacks). */
  gc: { longest: number; total: number; kind: number };
  /** The longest stall, and when it began (s since the previous call). */
  worst: { ms: number; at: number };
  /** The longest stall that began 3 s or more after the previous call (once a wave's starts are done). */
  steady: number;
}

export interface BenchServer {
  base: string;
  /** Resident memory of the server process, from /proc. */
  rssMb(): number;
  /** Resident memory of the server's child processes (PDF workers), from /proc. */
  childrenRssMb(): number;
  /** CPU time the server process has used so far (user + system), from /proc: comparable under load. */
  cpuMs(): number;
  /** The same for its main thread alone (the one that serves requests and streams). */
  mainThreadCpuMs(): number;
  /**
   * How late the server's own event loop ran since the last call (or the start), in ms: its
   * stalls, without those of the benchmark's process (`server-probe.cjs`).
   */
  loopDelay(): Promise<LoopDelay>;
  /** Runs active on the server (its `/api/health`); with several instances, on all of them. */
  activeRuns(): Promise<number>;
  stop(): Promise<void>;
}

/** `next start` on loopback against the given Ollama URL, with a throwaway DATA_DIR. */
export async function startServer(env: Record<string, string>): Promise<BenchServer> {
  ensureBuild();
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-"));
  // BENCH_SERVER_NODE_ARGS: Node flags for the server only, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);
  if (nodeArgs.length > 0) console.log(`Server Node flags: ${nodeArgs.join(" ")}`);
  const probe = path.join(import.meta.dirname, "server-probe.cjs");
  const probeFile = path.join(dataDir, "probe.json");
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...nodeArgs,
      "--require",
      probe,
      "node_modules/next/dist/bin/next",
      "start",
      "-H",
      "127.0.0.1",
      "-p",
      String(port),
    ],
    {
      env: { ...process.env, DATA_DIR: dataDir, NEXT_TELEMETRY_DISABLED: "1", BENCH_PROBE_FILE: probeFile, ...env },
      stdio: "ignore",
    },
  );
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/api/conversations`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error("server did not start");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // utime and stime are fields 14 and 15, after the command name in parentheses.
  const cpuOf = (statFile: string) => {
    const fields = fs.readFileSync(statFile, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS_PER_S);
  };
  return {
    base,
    rssMb: () => rssMbOf(child.pid!),
    childrenRssMb: () => childrenOf(child.pid!).reduce((sum, pid) => sum + rssMbOf(pid), 0),
    cpuMs: () => cpuOf(`/proc/${child.pid}/stat`),
    mainThreadCpuMs: () => cpuOf(`/proc/${child.pid}/task/${child.pid}/stat`),
    activeRuns: async () =>
      ((await (await fetch(`${base}/api/health`)).json()) as { runs: { active: number } }).runs.active,
    loopDelay: async () => {
      fs.rmSync(probeFile, { force: true });
      child.kill("SIGUSR2");
      const deadline = Date.now() + 5000;
      while (!fs.existsSync(probeFile)) {
        if (Date.now() > deadline) throw new Error("the server's probe did not answer");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return JSON.parse(fs.readFileSync(probeFile, "utf8"));
    },
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * What `npm run bench:load` drives: one `next start` on SQLite (the default); with
 * BENCH_STORE=postgres, on a throwaway PostgreSQL; with BENCH_INSTANCES=n (PostgreSQL implied), n
 * instances on one PostgreSQL behind nginx (tests/support/app-cluster.ts), measured as one server:
 * memory and CPU summed over the instances, the event-loop delay of the one running latest.
 */
export async function startBenchTarget(env: Record<string, string>): Promise<BenchServer & { described: string }> {
  const instances = Number(process.env.BENCH_INSTANCES ?? 1);
  if (!Number.isInteger(instances) || instances < 1) throw new Error("BENCH_INSTANCES is a whole number ≥ 1");
  const store = process.env.BENCH_STORE ?? (instances > 1 ? "postgres" : "sqlite");
  if (store !== "sqlite" && store !== "postgres") throw new Error("BENCH_STORE is sqlite or postgres");
  if (store === "sqlite" && instances > 1) throw new Error("several instances need BENCH_STORE=postgres");
  if (store === "sqlite") return { ...(await startServer(env)), described: "one instance on SQLite" };
  if (instances === 1) {
    const postgres = await startThrowawayPostgres();
    const database = await postgres.createDatabase("bench");
    const server = await startServer({ ...env, DATABASE_URL: database.url }).catch(async (error) => {
      await postgres.stop();
      throw error;
    });
    return {
      ...server,
      described: "one instance on PostgreSQL",
      stop: async () => {
        await server.stop();
        await postgres.stop();
      },
    };
  }
  const cluster = await startAppCluster({ instances, start: (database) => startServer({ ...env, ...database }) });
  const servers = cluster.instances;
  const sum = (measure: (server: BenchServer) => number) => () =>
    servers.reduce((total, server) => total + measure(server), 0);
  return {
    base: cluster.url,
    described: `${instances} instances on one PostgreSQL behind nginx (memory and CPU summed over them)`,
    rssMb: sum((server) => server.rssMb()),
    childrenRssMb: sum((server) => server.childrenRssMb()),
    cpuMs: sum((server) => server.cpuMs()),
    mainThreadCpuMs: sum((server) => server.mainThreadCpuMs()),
    // Each instance counts only the runs it holds; through nginx one would be asked at random.
    activeRuns: async () =>
      (await Promise.all(servers.map((server) => server.activeRuns()))).reduce((a, b) => a + b, 0),
    loopDelay: async () => {
      const delays = await Promise.all(servers.map((server) => server.loopDelay()));
      return delays.reduce((worse, delay) => (delay.max > worse.max ? delay : worse));
    },
    stop: cluster.stop,
  };
}

function rssMbOf(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0; // gone meanwhile
  }
}

/** Processes whose parent is `pid` (field 4 of /proc/<pid>/stat). */
function childrenOf(pid: number): number[] {
  return fs
    .readdirSync("/proc")
    .filter((entry) => {
      if (!/^\d+$/.test(entry)) return false;
      try {
        return fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.split(" ")[1] === String(pid);
      } catch {
        return false;
      }
    })
    .map(Number);
}

export async function createConversation(base: string): Promise<string> {
  const response = await fetch(`${base}/api/conversations`, {
    method: "POST",
    body: "{}",
    headers: { "content-type": "application/json" },
  });
  return ((await response.json()) as { conversation: { id: string } }).conversation.id;
}

/** Reads SSE messages until `onMessage` returns true or the stream ends. */
export async function readSseUntil(
  response: Response,
  onMessage: (message: SseMessage) => boolean | undefined,
  signal?: AbortSignal,
): Promise<void> {
  if (!response.body) return;
  for await (const message of readSse(response.body, signal)) {
    if (onMessage(message)) return;
  }
}
