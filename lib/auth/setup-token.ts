import "server-only";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "@/lib/db/client";
import { deleteSetting, holdSetting, readSetting, writeSetting } from "@/lib/db/settings";
import { accountsRequired, type Config } from "@/lib/env-config";
import { AppError } from "@/lib/errors";

/**
 * The setup token (docs/security.md, "The first account"): while an instance with accounts has no user,
 * the first sign-up — which makes the admin, who may start processes — needs a one-time token printed
 * in the server log, so the first visitor of a fresh internet-facing install does not take it over.
 * Only SHA-256 hashes are stored (the token is 256 random bits, so no slow hash is needed), in the
 * settings table so every instance of a cluster checks the same ones; the transaction that creates the
 * first account removes them all.
 */

const TOKENS_KEY = "setupTokenHashes";
/** Hashes kept: one per instance start (a cluster's instances each print their own), newest last. */
const MAX_TOKENS = 8;

const hashOf = (token: string) => createHash("sha256").update(token, "utf8").digest();

export function setupTokenError(): AppError {
  return new AppError(
    "forbidden:setup_token",
    "The setup token is missing or wrong. The first account needs the one-time token printed in the server log.",
  );
}

async function storedHashes(db: Db): Promise<string[]> {
  const value = await readSetting(db, TOKENS_KEY);
  return Array.isArray(value) ? value.filter((hash): hash is string => typeof hash === "string") : [];
}

/** Whether the first sign-up waits for a setup token: accounts are on and nobody has one yet. */
export function setupTokenApplies(config: Pick<Config, "AUTH_MODE" | "HOST">, userCount: number): boolean {
  return accountsRequired(config) && userCount === 0;
}

/**
 * A new setup token, its hash stored: SETUP_TOKEN when the operator set one, else 32 random bytes.
 * Returned for the log only.
 */
export async function issueSetupToken(db: Db, config: Pick<Config, "SETUP_TOKEN">): Promise<string> {
  const token = config.SETUP_TOKEN ?? randomBytes(32).toString("base64url");
  const hash = hashOf(token).toString("hex");
  const hashes = [...(await storedHashes(db)).filter((kept) => kept !== hash), hash].slice(-MAX_TOKENS);
  await writeSetting(db, TOKENS_KEY, hashes);
  return token;
}

/** The line the operator reads; a token from SETUP_TOKEN is not repeated into the log. */
export function announce(token: string, config: Pick<Config, "SETUP_TOKEN">, log: (line: string) => void): void {
  log(
    config.SETUP_TOKEN
      ? "[setup] no account yet: the first sign-up needs the setup token set in SETUP_TOKEN"
      : `[setup] no account yet: the first sign-up (the admin) needs this one-time setup token: ${token}`,
  );
}

/**
 * At start, while the first sign-up needs one: a fresh token, printed (each start prints a new one, so
 * an operator who lost the line restarts; the earlier ones stay valid until the first account is made).
 */
export async function announceSetupTokenAtStart(
  db: Db,
  config: Config,
  userCount: number,
  log: (line: string) => void = console.log,
): Promise<void> {
  if (!setupTokenApplies(config, userCount)) return;
  announce(await issueSetupToken(db, config), config, log);
}

/**
 * When the sign-up page or a first sign-up finds that the first account needs a token and none is
 * stored (the database was replaced while the server ran): one is issued and printed now.
 */
export async function ensureSetupToken(
  db: Db,
  config: Config,
  userCount: number,
  log: (line: string) => void = console.log,
): Promise<void> {
  if (!setupTokenApplies(config, userCount)) return;
  if ((await storedHashes(db)).length > 0) return;
  announce(await issueSetupToken(db, config), config, log);
}

/** Whether `token` is one of the stored ones, compared in constant time; nothing is changed. */
export async function isSetupToken(db: Db, token: string): Promise<boolean> {
  const given = hashOf(token);
  let match = false;
  for (const hash of await storedHashes(db)) {
    const stored = Buffer.from(hash, "hex");
    if (stored.length === given.length && timingSafeEqual(stored, given)) match = true;
  }
  return match;
}

/**
 * Inside the transaction creating the first account: its token is checked against the stored ones
 * (locked, so a concurrent first sign-up waits and then finds none) and every stored token removed.
 */
export async function consumeSetupToken(tx: Db, token: string | undefined): Promise<void> {
  await holdSetting(tx, TOKENS_KEY);
  if (token === undefined || !(await isSetupToken(tx, token))) throw setupTokenError();
  await clearSetupTokens(tx);
}

/** The first account exists: no token is accepted any more. */
export async function clearSetupTokens(tx: Db): Promise<void> {
  await deleteSetting(tx, TOKENS_KEY);
}
