import { randomBytes } from "node:crypto";
import { type RunningNginx, startNginx } from "../deploy/support/nginx";
import { startThrowawayPostgres, type ThrowawayPostgres } from "./throwaway-postgres";

/**
 * Several app instances on one PostgreSQL behind nginx, as docs/deploy.md sets them up on a VM: a
 * throwaway PostgreSQL cluster, `instances` app processes started by `start` with the same
 * DATABASE_URL and CLUSTER_SECRET, and nginx running deploy/nginx/ollama-web.conf with all of them in its upstream.
 * Used by e2e/cluster.spec.ts and `BENCH_INSTANCES` of scripts/bench/load.mts, which start the app
 * each in their own way.
 */

export interface AppInstance {
  /** http://127.0.0.1:<port> of this instance. */
  base: string;
  stop(): Promise<void>;
}

export interface AppCluster<T extends AppInstance> {
  instances: T[];
  /** nginx in front of every instance (round robin). */
  url: string;
  databaseUrl: string;
  /** Stops nginx, then the instances, then PostgreSQL. */
  stop(): Promise<void>;
}

export async function startAppCluster<T extends AppInstance>({
  instances,
  start,
}: {
  instances: number;
  /** Starts instance `index` with DATABASE_URL and CLUSTER_SECRET in its environment; resolves once it serves requests. */
  start: (env: { DATABASE_URL: string; CLUSTER_SECRET: string }, index: number) => Promise<T>;
}): Promise<AppCluster<T>> {
  const postgres: ThrowawayPostgres = await startThrowawayPostgres();
  const started: T[] = [];
  let nginx: RunningNginx | undefined;
  const stop = async () => {
    await nginx?.stop();
    await Promise.all(started.map((instance) => instance.stop()));
    await postgres.stop();
  };
  try {
    const database = await postgres.createDatabase("ollama_web");
    // The instances sign their messages to each other with one secret, as docs/deploy.md has them.
    const secret = randomBytes(32).toString("base64");
    // Together, as after a deploy: the instances migrate in turn under PostgreSQL's advisory lock.
    const results = await Promise.allSettled(
      Array.from({ length: instances }, (_, index) =>
        start({ DATABASE_URL: database.url, CLUSTER_SECRET: secret }, index),
      ),
    );
    for (const result of results) if (result.status === "fulfilled") started.push(result.value);
    const failed = results.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    nginx = await startNginx({ upstreams: started.map((instance) => new URL(instance.base).host) });
    return { instances: started, url: nginx.url, databaseUrl: database.url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
