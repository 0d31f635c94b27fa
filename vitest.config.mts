import path from "node:path";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const root = path.dirname(fileURLToPath(import.meta.url));

/** The store and what reads or writes it: run a second time, on PostgreSQL (docs/architecture.md, "Tests"). */
const STORE_TESTS = [
  "lib/db/**/*.test.ts",
  "lib/admin-settings.test.ts",
  "lib/export/**/*.test.ts",
  "lib/auth/**/*.test.ts",
  "lib/chat/**/*.test.ts",
  "tests/api/**/*.test.ts",
  "tests/tools/search-files.test.ts",
];
/**
 * Run on SQLite only: its migration history replayed on files of older versions, another process
 * holding its write lock (PostgreSQL's counterpart: tests/api/database-unreachable-api.test.ts).
 */
const SQLITE_ONLY = [
  "lib/db/upgrade.test.ts",
  "tests/api/database-busy-api.test.ts",
  // Read the sources, not the store: once is enough.
  "lib/db/portability.test.ts",
  "lib/db/schema-sqlite.test.ts",
];
/** PostgreSQL's own: its migrations, backups with pg_dump / pg_restore, the server going away. */
const POSTGRES_ONLY = [
  "lib/db/schema-pg.test.ts",
  "tests/deploy/backup-postgres.test.ts",
  "tests/api/database-unreachable-api.test.ts",
  // Several app instances sharing one database.
  "lib/cluster/cluster.test.ts",
  "lib/cluster/run-follow.test.ts",
  "tests/api/run-follow-api.test.ts",
  "tests/api/instances-api.test.ts",
];

export default defineConfig({
  resolve: {
    alias: {
      "@": root,
      // `server-only` throws outside React Server Components; tests run server code directly.
      "server-only": path.join(root, "tests/support/empty-module.ts"),
    },
  },
  test: {
    environment: "node",
    testTimeout: 15_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "sqlite",
          include: ["lib/**/*.test.ts", "tests/**/*.test.ts", "app/**/*.test.ts", "components/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...POSTGRES_ONLY],
        },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: [...STORE_TESTS, ...POSTGRES_ONLY],
          exclude: [...configDefaults.exclude, ...SQLITE_ONLY],
          // One throwaway cluster for the run; a database of its own for each file.
          globalSetup: ["tests/support/postgres-global-setup.ts"],
          setupFiles: ["tests/support/postgres-test-env.ts"],
        },
      },
    ],
  },
});
