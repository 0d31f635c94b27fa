import type { TestProject } from "vitest/node";
import { startThrowawayPostgres } from "./throwaway-postgres";

/**
 * The PostgreSQL test project's cluster (vitest.config.mts): started once for the run, stopped at
 * its end; each test file makes its own databases in it (tests/support/postgres-database.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startThrowawayPostgres();
  project.provide("postgresAdminUrl", cluster.url());
  return () => cluster.stop();
}
