// npm run create-user -- <username> [--admin]
// Creates an account from the server's shell, so the first admin need not race anyone to the sign-up
// page. The password is read from standard input (one line), never from the command line.
import path from "node:path";
import readline from "node:readline";
import { createUser } from "@/lib/auth/accounts";
import { closeDb, getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

try {
  process.loadEnvFile(path.resolve(".env"));
} catch {
  // no .env
}

const args = process.argv.slice(2);
const username = args.find((arg) => !arg.startsWith("--"));
if (!username) {
  console.error("usage: npm run create-user -- <username> [--admin]   (the password is read from stdin)");
  process.exit(2);
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
if (process.stdin.isTTY) process.stdout.write("Password (at least 8 characters): ");
const password = await new Promise<string>((resolve) => rl.once("line", resolve).once("close", () => resolve("")));
rl.close();

// The store the server uses: SQLite in DATA_DIR, or PostgreSQL when DATABASE_URL names it.
const db = await getDb();
try {
  const user = await createUser(db, {
    username,
    password,
    role: args.includes("--admin") ? "admin" : "user",
    byAdmin: true,
  });
  console.log(`Created ${user.role} ${user.username}.`);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  // A name or password that breaks the account rules is a usage error, like a missing name.
  process.exitCode = error instanceof AppError && error.kind === "bad_request" ? 2 : 1;
} finally {
  await closeDb(db);
}
