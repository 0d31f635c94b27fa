import { randomBytes } from "node:crypto";
import { afterAll, inject } from "vitest";
import { createDatabase } from "./throwaway-postgres";

/**
 * The PostgreSQL test project's setup file (vitest.config.mts): each test file gets a database of
 * its own in the run's cluster, as DATABASE_URL, before it loads any of the app's modules, so
 * lib/db/schema.ts hands out PostgreSQL's tables and `getDb()` connects there.
 */
const adminUrl = inject("postgresAdminUrl");
if (!adminUrl)
  throw new Error("The PostgreSQL test project runs without its cluster (tests/support/postgres-global-setup.ts).");
const database = await createDatabase(adminUrl, "file");
process.env.DATABASE_URL = database.url;
// Several app instances, as their tests start them, sign their messages with one shared secret.
process.env.CLUSTER_SECRET = randomBytes(32).toString("base64");

afterAll(async () => {
  await database.drop();
});
