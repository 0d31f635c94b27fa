import { inject } from "vitest";
import { createDatabase, startThrowawayPostgres, type ThrowawayDatabase } from "./throwaway-postgres";

declare module "vitest" {
  export interface ProvidedContext {
    /** A superuser's URL of the throwaway cluster the PostgreSQL test project started (tests/support/postgres-global-setup.ts). */
    postgresAdminUrl?: string;
  }
}

/**
 * A fresh database for one test file: in the cluster of the PostgreSQL test project when this run
 * has one, otherwise in a throwaway cluster of its own that `drop` stops.
 */
export async function freshPostgresDatabase(prefix: string): Promise<ThrowawayDatabase> {
  const adminUrl = inject("postgresAdminUrl");
  if (adminUrl) return createDatabase(adminUrl, prefix);
  const cluster = await startThrowawayPostgres();
  try {
    const database = await cluster.createDatabase(prefix);
    return { ...database, drop: () => cluster.stop() };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}
