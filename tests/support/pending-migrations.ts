import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * What `drizzle-kit generate` would add to a migrations folder: it diffs the schema against the folder's
 * last snapshot, in a copy, so the folder itself is left as it is. Nothing added: the migrations are up
 * to date with the schema.
 */
export function pendingMigrationFiles(options: {
  dialect: "sqlite" | "postgresql";
  schema: string;
  migrations: string;
}): { added: string[]; output: string } {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-migrations-"));
  try {
    fs.cpSync(options.migrations, copy, { recursive: true });
    const before = new Set(listFiles(copy));
    const result = spawnSync(
      path.join("node_modules", ".bin", "drizzle-kit"),
      [
        "generate",
        `--dialect=${options.dialect}`,
        `--schema=${options.schema}`,
        // drizzle-kit takes the folder relative to the working directory.
        `--out=${path.relative(process.cwd(), copy)}`,
      ],
      { encoding: "utf8" },
    );
    if (result.status !== 0) throw new Error(`drizzle-kit generate failed: ${result.stderr}`);
    return { added: listFiles(copy).filter((file) => !before.has(file)), output: result.stdout };
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

function listFiles(folder: string): string[] {
  return (fs.readdirSync(folder, { recursive: true }) as string[]).sort();
}
