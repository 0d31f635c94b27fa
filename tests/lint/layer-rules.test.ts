import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { is, Table } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as schema from "@/lib/db/schema";

/**
 * docs/architecture.md, "Layers": what may import what is kept by `npm run lint` (biome.json's
 * overrides and lint/browser-value-imports.grit). Each case plants a file inside a restricted folder,
 * once with a forbidden import and once with what the rule allows instead, and lints them with the
 * project's own configuration: the forbidden one must fail, the allowed one must pass.
 */

const root = path.resolve(import.meta.dirname, "../..");

interface Case {
  rule: string;
  folder: string;
  forbidden: string;
  allowed: string;
}

const CASES: Case[] = [
  {
    rule: "lib/agent imports no database module",
    folder: "lib/agent",
    forbidden: 'import { getDb } from "@/lib/db/client";\nexport const x = getDb;',
    allowed: 'import type { LLM } from "@/lib/llm/types";\nexport type X = LLM;',
  },
  {
    rule: "lib/agent imports no database module, not even its types",
    folder: "lib/agent/dag",
    forbidden: 'import type { Db } from "../../db/client";\nexport type X = Db;',
    allowed: 'import type { AgentInput } from "../types";\nexport type X = AgentInput;',
  },
  {
    rule: "lib/agent imports no Drizzle",
    folder: "lib/agent",
    forbidden: 'import { eq } from "drizzle-orm";\nexport const x = eq;',
    allowed: 'import { z } from "zod";\nexport const x = z;',
  },
  {
    rule: "lib/agent imports nothing of lib/chat",
    folder: "lib/agent",
    forbidden: 'import { LiveRun } from "@/lib/chat/live-run";\nexport const x = LiveRun;',
    allowed: 'import { prompt } from "@/lib/prompts";\nexport const x = prompt;',
  },
  {
    rule: "lib/agent imports nothing of lib/chat by a relative path",
    folder: "lib/agent",
    forbidden: 'import { LiveRun } from "../chat/live-run";\nexport const x = LiveRun;',
    allowed: 'import { ContextGuard } from "./context-guard";\nexport const x = ContextGuard;',
  },
  {
    rule: "lib/agent imports no Next.js",
    folder: "lib/agent",
    forbidden: 'import { NextResponse } from "next/server";\nexport const x = NextResponse;',
    allowed: 'import { noticeText } from "./notices";\nexport const x = noticeText;',
  },
  {
    rule: "lib/agent imports no AI SDK: it talks to an LLM",
    folder: "lib/agent",
    forbidden: 'import { streamText } from "ai";\nexport const x = streamText;',
    allowed: 'import type { LLM } from "@/lib/llm/types";\nexport type X = LLM;',
  },
  {
    rule: "lib/agent imports no AI SDK provider",
    folder: "lib/agent/dag",
    forbidden:
      'import { createOpenAICompatible } from "@ai-sdk/openai-compatible";\nexport const x = createOpenAICompatible;',
    allowed: 'import type { LLM } from "../../llm/types";\nexport type X = LLM;',
  },
  {
    rule: "lib/agent is not server-only",
    folder: "lib/agent",
    forbidden: 'import "server-only";\nexport const x = 1;',
    allowed: "export const x = 1;",
  },
  {
    rule: "outside lib/db nothing imports Drizzle: queries live in lib/db",
    folder: "lib/files",
    forbidden: 'import { eq } from "drizzle-orm";\nexport const x = eq;',
    allowed: 'import { findFile } from "@/lib/db/files";\nexport const x = findFile;',
  },
  {
    rule: "outside lib/db nothing imports a table, only row types and value lists",
    folder: "lib/export",
    forbidden:
      'import { files, type StoredFile } from "@/lib/db/schema";\nexport const x: [unknown, StoredFile?] = [files];',
    allowed:
      'import { messageRoles, type StoredFile } from "@/lib/db/schema";\nexport const x: [unknown, StoredFile?] = [messageRoles];',
  },
  {
    rule: "outside lib/db nothing imports a table by a relative path",
    folder: "lib/auth",
    forbidden: 'import { users } from "../db/schema";\nexport const x = users;',
    allowed: 'import type { User } from "../db/schema";\nexport type X = User;',
  },
  {
    rule: "a route imports no Drizzle and no dialect's schema",
    folder: "app/api",
    forbidden:
      'import { sqliteTable } from "drizzle-orm/sqlite-core";\nimport * as pg from "@/lib/db/schema-pg";\nexport const x = [sqliteTable, pg];',
    allowed: 'import { getDb } from "@/lib/db/client";\nexport const x = getDb;',
  },
  {
    rule: "components import a server module type-only",
    folder: "components",
    forbidden: 'import { getDb } from "@/lib/db/client";\nexport const x = getDb;',
    allowed: 'import type { Db } from "@/lib/db/client";\nexport type X = Db;',
  },
  {
    rule: "components import a server module type-only, also with inline type specifiers",
    folder: "components/chat",
    forbidden: 'import { type RunSummary } from "@/lib/db/runs";\nexport type X = RunSummary;',
    allowed: 'import type { RunSummary } from "@/lib/db/runs";\nexport type X = RunSummary;',
  },
  {
    rule: "components re-export no server value",
    folder: "components",
    forbidden: 'export { startChat } from "@/lib/chat/chat-service";',
    allowed: 'export type { ChatSettings } from "@/lib/chat-settings";',
  },
  {
    rule: "components re-export nothing of a server module",
    folder: "components/settings",
    forbidden: 'export * from "@/lib/mcp/hub";',
    allowed: 'export * from "@/lib/mcp/types";',
  },
  {
    rule: "components load no server module lazily",
    folder: "components",
    forbidden: 'export const load = () => import("@/lib/env-config");',
    allowed: 'export const load = () => import("@/lib/client/api");',
  },
  {
    rule: "lib/client imports a server module type-only, framework-free ones as values",
    folder: "lib/client",
    forbidden: 'import { getConfig } from "@/lib/env-config";\nexport const x = getConfig;',
    allowed: 'import { replacementModel } from "@/lib/llm/model-replacement";\nexport const x = replacementModel;',
  },
  {
    rule: "lib/client reaches no server module by a relative path",
    folder: "lib/client",
    forbidden: 'import { getDb } from "../db/client";\nexport const x = getDb;',
    allowed: 'import { SETTINGS_RANGES } from "@/lib/chat-settings";\nexport const x = SETTINGS_RANGES;',
  },
];

interface Planted {
  rule: string;
  forbidden: string;
  allowed: string;
}

const planted: Planted[] = CASES.map((c, i) => {
  const file = (kind: string) => path.join(c.folder, `zz-planted-${process.pid}-${i}-${kind}.ts`);
  return { rule: c.rule, forbidden: file("forbidden"), allowed: file("allowed") };
});

/** Paths (relative to the root) of the planted files Biome reported an error in. */
let failing: Set<string>;
let exitCode: number | null;

beforeAll(() => {
  CASES.forEach((c, i) => {
    const files = planted[i]!;
    writeFileSync(path.join(root, files.forbidden), `${c.forbidden}\n`);
    writeFileSync(path.join(root, files.allowed), `${c.allowed}\n`);
  });
  const biome = spawnSync(
    path.join(root, "node_modules/.bin/biome"),
    ["lint", "--reporter=json", ...planted.flatMap((p) => [p.forbidden, p.allowed])],
    { cwd: root, encoding: "utf8" },
  );
  exitCode = biome.status;
  const report = JSON.parse(biome.stdout) as {
    diagnostics: { severity: string; category: string; location: { path: string } }[];
  };
  failing = new Set(
    report.diagnostics.filter((d) => d.severity === "error").map((d) => path.normalize(d.location.path)),
  );
}, 120_000);

afterAll(() => {
  for (const p of planted) {
    rmSync(path.join(root, p.forbidden), { force: true });
    rmSync(path.join(root, p.allowed), { force: true });
  }
});

describe("the layer rules fail npm run lint when broken", () => {
  it("fails the lint run while a forbidden import is planted", () => {
    expect(exitCode).not.toBe(0);
  });

  it.each(planted)("$rule", ({ forbidden, allowed }) => {
    expect(failing.has(path.normalize(forbidden)), `${forbidden} should fail the lint`).toBe(true);
    expect(failing.has(path.normalize(allowed)), `${allowed} should pass the lint`).toBe(false);
  });
});

describe("the data-access rule knows every table", () => {
  it("forbids, outside lib/db, the import of each table lib/db/schema exports", () => {
    const config = JSON.parse(readFileSync(path.join(root, "biome.json"), "utf8")) as {
      overrides: {
        linter?: { rules?: { style?: { noRestrictedImports?: { options?: { patterns?: unknown[] } } } } };
      }[];
    };
    const patterns = config.overrides.flatMap(
      (o) => (o.linter?.rules?.style?.noRestrictedImports?.options?.patterns ?? []) as { importNamePattern?: string }[],
    );
    const forbidden = patterns.flatMap((p) => p.importNamePattern?.replace(/[()]/g, "").split("|") ?? []);
    const tables = Object.entries(schema)
      .filter(([, value]) => is(value, Table))
      .map(([name]) => name);
    expect(tables.length).toBeGreaterThan(0);
    expect(new Set(forbidden)).toEqual(new Set(tables));
  });
});
