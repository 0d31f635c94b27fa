import { defineConfig } from "drizzle-kit";

/** PostgreSQL's migrations, generated from its twin of the schema (`lib/db/schema-pg.ts`). */
export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/db/schema-pg.ts",
  out: "./drizzle-pg",
});
