import { chosenStore } from "../env-config";
import * as postgres from "./schema-pg";
import * as sqlite from "./schema-sqlite";

/**
 * The tables of the store this process uses (docs/architecture.md, "Persistence"): SQLite's
 * (lib/db/schema-sqlite.ts) unless DATABASE_URL names PostgreSQL (lib/db/schema-pg.ts), chosen once
 * when this module loads. Typed as SQLite's whichever it is: lib/db/schema-parity.test.ts keeps the
 * two column for column, so every query is written once.
 */

export * from "./schema-sqlite";

const tables: typeof sqlite = chosenStore() === "postgres" ? (postgres as unknown as typeof sqlite) : sqlite;

export const users = tables.users;
export const sessions = tables.sessions;
export const settings = tables.settings;
export const projects = tables.projects;
export const conversations = tables.conversations;
export const presets = tables.presets;
export const messages = tables.messages;
export const runs = tables.runs;
export const instances = tables.instances;
export const runEvents = tables.runEvents;
export const runSources = tables.runSources;
export const runSourceParts = tables.runSourceParts;
export const citationReports = tables.citationReports;
export const interrupts = tables.interrupts;
export const mcpServers = tables.mcpServers;
export const toolApprovals = tables.toolApprovals;
export const files = tables.files;
export const fileChunks = tables.fileChunks;
export const memories = tables.memories;
export const memoryDismissals = tables.memoryDismissals;
