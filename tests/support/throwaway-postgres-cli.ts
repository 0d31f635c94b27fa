import { startThrowawayPostgres } from "./throwaway-postgres";

/**
 * `npx tsx tests/support/throwaway-postgres-cli.ts`: a throwaway PostgreSQL on loopback for trying
 * the app or a benchmark on PostgreSQL by hand. Prints a DATABASE_URL for a fresh database, runs
 * until Ctrl-C (or SIGTERM), then stops the server and deletes everything it held.
 */
const cluster = await startThrowawayPostgres();
const database = await cluster.createDatabase("ollama_web");
console.log(`DATABASE_URL=${database.url}`);
console.log("Ctrl-C stops the server and deletes its data.");

const stop = async () => {
  await cluster.stop();
  process.exit(0);
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
setInterval(() => {}, 1 << 30);
