import { inject } from "vitest";
import { createDatabase, startThrowawayPostgres, type ThrowawayDatabase } from "./throwaway-postgres";

declare module "vitest" {
  export interface ProvidedContext {
    /** A superuser's URL of the throwaway cluster the PostgreSQL test project started (tests/support/postgres-global-setup.ts). */
    postgresAdminUrl?: string;
  }
}

export interface TestCluster {
  createDatabase(prefix: string): Promise<ThrowawayDatabase>;
  /** Stops the cluster when it is this file's own. */
  stop(): Promise<void>;
}

/** The PostgreSQL test project's cluster when this run has one, otherwise a throwaway cluster of the test file's own. */
export async function testCluster(): Promise<TestCluster> {
  const adminUrl = inject("postgresAdminUrl");
  if (adminUrl) return { createDatabase: (prefix) => createDatabase(adminUrl, prefix), stop: async () => {} };
  return startThrowawayPostgres();
}

/** A fresh database for one test file; `drop` also stops the cluster when it is the file's own. */
export async function freshPostgresDatabase(prefix: string): Promise<ThrowawayDatabase> {
  const cluster = await testCluster();
  try {
    const database = await cluster.createDatabase(prefix);
    return {
      ...database,
      drop: async () => {
        await database.drop();
        await cluster.stop();
      },
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}
