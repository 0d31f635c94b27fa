/**
 * `npm run bench:fidelity`: how faithfully the tools read documents the project makes or ships.
 * Each module in scripts/bench/fidelity/ is one section (PDF, HTML, paging…): its default export
 * measures and prints its figures, and returns the goals it missed. Exits non-zero only on errors.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

type Section = () => Promise<string[]>;

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), "fidelity");
const names = (await readdir(dir)).filter((name) => name.endsWith(".mts")).sort();
const missed: string[] = [];
for (const name of names) {
  const section: Section = (await import(pathToFileURL(path.join(dir, name)).href)).default;
  console.log(`\n## ${name.replace(/\.mts$/, "")}`);
  missed.push(...(await section()));
}
console.log(missed.length ? `\nGoals missed:\n- ${missed.join("\n- ")}` : "\nEvery goal met.");
