import "server-only";
import type { Db } from "@/lib/db/client";
import { deleteSetting, readAllSettings, writeSetting } from "@/lib/db/settings";
import { bumpRevision, REVISION_KEY, readRevision } from "@/lib/db/settings-revision";
import { type Config, getConfig, ollamaUrls } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import type { AbilityOverride } from "@/lib/llm/ability-override";
import { KEEP_ALIVE_HINT, keepAliveValue } from "@/lib/llm/keep-alive";
import { MODEL_ROLES, type ModelRole, ROLE_ENV } from "@/lib/llm/model-roles";
import { processSingleton } from "@/lib/util/process-singleton";

/**
 * Settings an admin can change from the UI: model roles, how long each role's model stays loaded
 * (keep_alive), the search backend, and what models of OpenAI-compatible servers can do.
 * A value set in the environment wins and is shown read-only; the limits below are
 * environment-only (README.md, "Configuration").
 */

export const LIMIT_KEYS = [
  "NUM_CTX",
  "MAX_INSTRUCTIONS_CHARS",
  "SEARCH_MAX_RESULTS",
  "SCRAPE_MAX_CHARS",
  "FETCH_MAX_RESULTS",
  "FETCH_MAX_CHARS",
  "MAX_FETCH_MB",
  "MAX_PDF_PAGES",
  "MAX_TOOL_RESULT_CHARS",
  "MAX_TOOL_CONTEXT_CHARS",
  "MAX_TOOL_ROUNDS",
  "MAX_ITERATIONS",
  "PAGINATION_TOKEN_TTL",
  "TOOL_SELECTION_THRESHOLD",
  "TOOL_SELECTION_MAX",
  "SYNTHESIS_TRACE_CHARS",
  "MAX_RUNS_PER_USER",
  "MAX_RUNS_TOTAL",
] as const satisfies readonly (keyof Config)[];

/** Where a setting's value comes from: the environment (read-only), the settings page, or the default. */
export type SettingSource = "env" | "settings" | "default";
export interface Setting<T> {
  value: T;
  source: SettingSource;
}

export interface EffectiveSettings {
  /** The Ollama server, or servers (", " between them); environment-only, the page shows it read-only. */
  ollamaUrl: string;
  ollamaUrlEnv: "OLLAMA_BASE_URL" | "OLLAMA_BASE_URLS";
  roles: Record<ModelRole, Setting<string | null>>;
  /** `keep_alive` per role (null: the default, `OLLAMA_KEEP_ALIVE`); `general` is the conversation's model. */
  keepAlive: { default: Setting<string>; roles: Record<ModelRole, string | null> };
  searchBackend: Setting<Config["SEARCH_BACKEND"]>;
  limits: Record<(typeof LIMIT_KEYS)[number], Setting<number>>;
  /** Per `<model>@<label>`: abilities the admin set, over the probe's (docs/architecture.md, "OpenAI-compatible servers"). */
  modelAbilities: Record<string, AbilityOverride>;
}

const MODEL_ABILITIES_KEY = "modelAbilities";

/**
 * The settings table, read once per database and again after each write: every run start reads
 * the settings, and only `store` below changes them. One cache per process (`processSingleton`):
 * Next.js may load this module once per bundle, and a write through one copy must not leave
 * another copy's cache stale. A write on another instance is seen at the next run
 * start (`syncSettings`): the table holds the revision it wrote (lib/db/settings-revision.ts).
 */
const storedValues = processSingleton("storedSettings", () => new WeakMap<Db, Promise<Map<string, unknown>>>())();

function storedSettings(db: Db): Promise<Map<string, unknown>> {
  let values = storedValues.get(db);
  if (!values) {
    const reading = readAllSettings(db);
    // A failed read is not kept: the next one tries again.
    reading.catch(() => storedValues.get(db) === reading && storedValues.delete(db));
    storedValues.set(db, reading);
    values = reading;
  }
  return values;
}

async function store(db: Db, key: string, value: unknown): Promise<void> {
  await db.transaction(async (tx) => {
    if (value === null) await deleteSetting(tx, key);
    else await writeSetting(tx, key, value);
    await bumpRevision(tx);
  });
  // After the write: a read that began before it is not kept.
  storedValues.delete(db);
}

/**
 * At a run's start: forgets the cached settings when another instance (or process) changed them
 * since they were read, so the run reads them afresh. One row read when nothing changed.
 */
export async function syncSettings(db: Db): Promise<void> {
  const cached = storedValues.get(db);
  if (!cached) return;
  const [revision, values] = await Promise.all([readRevision(db), cached.catch(() => null)]);
  const stale = !values || (values.get(REVISION_KEY) ?? null) !== revision;
  if (stale && storedValues.get(db) === cached) storedValues.delete(db);
}

const fromEnv = (name: string, env: NodeJS.ProcessEnv) => env[name] !== undefined && env[name] !== "";

export async function getSettings(db: Db, config = getConfig(), env = process.env): Promise<EffectiveSettings> {
  const values = await storedSettings(db);
  const stored = <T>(key: string) => values.get(key) as T | undefined;
  const roles = Object.fromEntries(
    MODEL_ROLES.map((role): [ModelRole, Setting<string | null>] => {
      const envName = ROLE_ENV[role];
      if (fromEnv(envName, env)) return [role, { value: String(config[envName]), source: "env" }];
      const value = stored<string>(`role.${role}`);
      return [role, value ? { value, source: "settings" } : { value: null, source: "default" }];
    }),
  ) as EffectiveSettings["roles"];
  const backend = stored<Config["SEARCH_BACKEND"]>("searchBackend");
  const searchBackend: Setting<Config["SEARCH_BACKEND"]> = fromEnv("SEARCH_BACKEND", env)
    ? { value: config.SEARCH_BACKEND, source: "env" }
    : backend
      ? { value: backend, source: "settings" }
      : { value: config.SEARCH_BACKEND, source: "default" };
  const limits = Object.fromEntries(
    LIMIT_KEYS.map((key) => [key, { value: config[key], source: fromEnv(key, env) ? "env" : "default" }]),
  ) as EffectiveSettings["limits"];
  const keepAlive = {
    default: { value: config.OLLAMA_KEEP_ALIVE, source: fromEnv("OLLAMA_KEEP_ALIVE", env) ? "env" : "default" },
    roles: Object.fromEntries(MODEL_ROLES.map((role) => [role, stored<string>(`keepAlive.${role}`) ?? null])),
  } as EffectiveSettings["keepAlive"];
  return {
    ollamaUrl: ollamaUrls(config).join(", "),
    ollamaUrlEnv: config.OLLAMA_BASE_URLS ? "OLLAMA_BASE_URLS" : "OLLAMA_BASE_URL",
    roles,
    keepAlive,
    searchBackend,
    limits,
    modelAbilities: stored<Record<string, AbilityOverride>>(MODEL_ABILITIES_KEY) ?? {},
  };
}

/** The admin's ability overrides, by `<model>@<label>`. */
export async function abilityOverrides(db: Db): Promise<Record<string, AbilityOverride>> {
  return (await getSettings(db)).modelAbilities;
}

/** The `keep_alive` sent with requests on a role's model: the role's own, else the default. */
export async function keepAliveFor(db: Db, role: ModelRole): Promise<string | number> {
  const { keepAlive } = await getSettings(db);
  const text = keepAlive.roles[role] ?? keepAlive.default.value;
  return keepAliveValue(text) ?? text;
}

/** The model configured for a role, if any (environment first, then the settings page). */
export async function roleModel(db: Db, role: ModelRole): Promise<string | undefined> {
  return (await getSettings(db)).roles[role].value ?? undefined;
}

export async function updateSettings(
  db: Db,
  patch: {
    roles?: Partial<Record<ModelRole, string | null>>;
    keepAlive?: Partial<Record<ModelRole, string | null>>;
    searchBackend?: Config["SEARCH_BACKEND"];
    /** Per model: its overrides (an ability left out goes back to the probe's); null drops them all. */
    modelAbilities?: Record<string, AbilityOverride | null>;
  },
  env = process.env,
): Promise<EffectiveSettings> {
  const keepAlive = Object.entries(patch.keepAlive ?? {}) as [ModelRole, string | null][];
  for (const [role, value] of keepAlive) {
    if (value && keepAliveValue(value) === undefined) {
      throw new AppError("bad_request:keep_alive", `Keep-alive for the ${role} role must be ${KEEP_ALIVE_HINT}.`, {
        details: { role },
      });
    }
  }
  for (const [role, value] of Object.entries(patch.roles ?? {}) as [ModelRole, string | null][]) {
    if (fromEnv(ROLE_ENV[role], env)) {
      throw new AppError(
        "bad_request:env_setting",
        `The ${role} model is set by ${ROLE_ENV[role]} in the environment.`,
        { details: { variable: ROLE_ENV[role] } },
      );
    }
    await store(db, `role.${role}`, value || null);
  }
  for (const [role, value] of keepAlive) await store(db, `keepAlive.${role}`, value?.trim() || null);
  if (patch.searchBackend !== undefined) {
    if (fromEnv("SEARCH_BACKEND", env)) {
      throw new AppError("bad_request:env_setting", "The search backend is set by SEARCH_BACKEND in the environment.", {
        details: { variable: "SEARCH_BACKEND" },
      });
    }
    if (patch.searchBackend === "searxng" && !getConfig().SEARXNG_URL) {
      throw new AppError("bad_request:searxng_url", "Set SEARXNG_URL in the environment before choosing SearXNG.");
    }
    await store(db, "searchBackend", patch.searchBackend);
  }
  if (patch.modelAbilities) {
    const next = { ...(await getSettings(db)).modelAbilities };
    for (const [model, override] of Object.entries(patch.modelAbilities)) {
      const set = Object.entries(override ?? {}).filter(([, value]) => typeof value === "boolean");
      if (set.length) next[model] = Object.fromEntries(set);
      else delete next[model];
    }
    await store(db, MODEL_ABILITIES_KEY, Object.keys(next).length ? next : null);
  }
  return getSettings(db);
}
