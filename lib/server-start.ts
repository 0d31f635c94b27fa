import "server-only";
import { ConfigError, getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";

/**
 * Runs once when the server starts (from instrumentation.ts): a bad configuration stops it with one
 * clear line, and the database is opened so migrations and crash recovery happen before the first
 * request (SPEC §3, §4).
 */
export function startServer(): void {
  try {
    const config = getConfig();
    if (config.FETCH_ALLOW_PRIVATE.length > 0) {
      console.warn(`[config] FETCH_ALLOW_PRIVATE lets fetches reach: ${config.FETCH_ALLOW_PRIVATE.join(", ")}`);
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  getDb();
}
