import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The docs are the project's design, and code comments point at them by section
 * (`docs/engine.md, "DAG mode"`). These rules keep every such pointer one a reader can follow: a
 * comment names a doc section, never a spec paragraph or an issue number no reader can open; a file,
 * anchor or quoted section a comment or a doc points at exists; and every route is in docs/api.md.
 */

const ROOT = path.resolve(__dirname, "../..");
const CODE_ROOTS = ["app", "lib", "components", "scripts", "tests", "e2e", "proxy.ts", "instrumentation.ts"];
const CODE_FILE = /\.(ts|tsx|mts|mjs|cjs|js)$/;
const SKIPPED = new Set(["node_modules", ".next", "fixtures"]);
const THIS_FILE = path.relative(ROOT, __filename);

function walk(rel: string, keep: (file: string) => boolean, out: string[] = []): string[] {
  const abs = path.join(ROOT, rel);
  if (!fs.existsSync(abs)) return out;
  if (fs.statSync(abs).isDirectory()) {
    for (const name of fs.readdirSync(abs)) {
      if (!SKIPPED.has(name)) walk(path.join(rel, name), keep, out);
    }
  } else if (keep(rel)) {
    out.push(rel);
  }
  return out;
}

const codeFiles = (): string[] => CODE_ROOTS.flatMap((r) => walk(r, (f) => CODE_FILE.test(f) && f !== THIS_FILE));
const docFiles = (): string[] => ["README.md", ...walk("docs", (f) => f.endsWith(".md"))];
const read = (rel: string): string => fs.readFileSync(path.join(ROOT, rel), "utf8");

/** A comment's lines joined into one, so a pointer broken over two lines reads whole. */
const joinCommentLines = (text: string): string => text.replace(/\n[ \t]*(?:\*(?!\/)|\/\/)?[ \t]*/g, " ");
const joinLines = (text: string): string => text.replace(/\n[ \t]*/g, " ");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

const plain = (text: string): string => text.replace(/`/g, "").replace(/\s+/g, " ").trim().toLowerCase();

interface DocIndex {
  anchors: Set<string>;
  /** Headings and the bold words that open a paragraph or list item, in plain lower case. */
  sections: string[];
}

const indexes = new Map<string, DocIndex>();
function docIndex(rel: string): DocIndex {
  const known = indexes.get(rel);
  if (known) return known;
  const anchors = new Set<string>();
  const sections: string[] = [];
  let fenced = false;
  for (const line of read(rel).split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.+?)\s*$/.exec(line)?.[1];
    if (heading) {
      anchors.add(slug(heading.replace(/`/g, "")));
      sections.push(plain(heading));
    }
    const lead = /^\s*(?:[-*]\s+|\d+\.\s+)?\*\*(.+?)\*\*/.exec(line)?.[1];
    if (lead) sections.push(plain(lead).replace(/[.:]$/, ""));
  }
  const index = { anchors, sections };
  indexes.set(rel, index);
  return index;
}

/** A quoted section is a heading or a paragraph's bold lead, or their first words. */
function hasSection(rel: string, quoted: string): boolean {
  const wanted = plain(quoted);
  return docIndex(rel).sections.some(
    (section) =>
      section === wanted || (section.startsWith(wanted) && !/[\p{L}\p{N}]/u.test(section[wanted.length] ?? "")),
  );
}

interface Pointer {
  from: string;
  target: string;
  anchor?: string;
  section?: string;
}

/** `docs/x.md`, `docs/x.md#anchor`, `docs/x.md, "Section"`; in docs also `x.md` beside it and Markdown links. */
function pointers(from: string, text: string, inDocs: boolean): Pointer[] {
  const found: Pointer[] = [];
  const mention = inDocs
    ? /(?<![\w/.-])((?:docs\/)?[a-z][a-z-]*\.md|README\.md)(#[\w-]+)?(?:,?\s*"([A-Z`][^"\n]{0,100})")?/g
    : /(?<![\w/.-])(docs\/[a-z][a-z-]*\.md|README\.md)(#[\w-]+)?(?:,?\s*"([A-Z`][^"\n]{0,100})")?/g;
  for (const m of text.matchAll(mention)) {
    const name = m[1] ?? "";
    const target = name === "README.md" || name.startsWith("docs/") ? name : `docs/${name}`;
    found.push({ from, target, anchor: m[2]?.slice(1), section: m[3] });
  }
  if (inDocs) {
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1] ?? "";
      if (/^[a-z]+:/i.test(link)) continue;
      const [file, anchor] = link.split("#");
      const target = file ? path.normalize(path.join(path.dirname(from), file)) : from;
      found.push({ from, target, anchor });
    }
  }
  return found;
}

function brokenPointers(list: Pointer[]): string[] {
  const broken = new Set<string>();
  for (const p of list) {
    const where = `${p.from} → ${p.target}${p.anchor ? `#${p.anchor}` : ""}${p.section ? `, "${p.section}"` : ""}`;
    if (!fs.existsSync(path.join(ROOT, p.target))) broken.add(`${where}: no such file`);
    else if (!p.target.endsWith(".md")) continue;
    else if (p.anchor && !docIndex(p.target).anchors.has(p.anchor)) broken.add(`${where}: no such anchor`);
    else if (p.section && !hasSection(p.target, p.section)) broken.add(`${where}: no such section`);
  }
  return [...broken];
}

const UNREADABLE_REFERENCE = [/SPEC\s*§/, /§\s*\d/, /\bissues?\s+#?\d/i];

describe("code comments point at docs", () => {
  it("no source file names a spec paragraph (§n) or an issue number instead of a doc section", () => {
    const offenders = codeFiles().flatMap((file) =>
      read(file)
        .split("\n")
        .flatMap((line, i) =>
          UNREADABLE_REFERENCE.some((r) => r.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(offenders).toEqual([]);
  });

  it("every docs file, anchor and quoted section a source file points at exists", () => {
    const list = codeFiles().flatMap((file) => pointers(file, joinCommentLines(read(file)), false));
    expect(list.length).toBeGreaterThan(50);
    expect(brokenPointers(list)).toEqual([]);
  });

  it("every link and section reference between the docs (README included) leads somewhere", () => {
    const list = docFiles().flatMap((file) => pointers(file, joinLines(read(file)), true));
    expect(brokenPointers(list)).toEqual([]);
  });

  it("finds a pointer to a missing file, anchor or section (the check itself can fail)", () => {
    const planted = joinCommentLines(
      [
        "/** See docs/nowhere.md, and docs/api.md#no-such-anchor, and docs/engine.md,",
        ' * "A section nobody wrote"; but docs/engine.md, "DAG mode" and docs/api.md#runs are there. */',
      ].join("\n"),
    );
    expect(brokenPointers(pointers("planted.ts", planted, false))).toEqual([
      "planted.ts → docs/nowhere.md: no such file",
      "planted.ts → docs/api.md#no-such-anchor: no such anchor",
      'planted.ts → docs/engine.md, "A section nobody wrote": no such section',
    ]);
  });
});

/** A path as written, or a module specifier without its extension (`lib/db/schema`). */
const MODULE_SUFFIXES = ["", ".ts", ".tsx", ".mts", ".mjs", "/index.ts"];

describe("docs name files that exist", () => {
  it("every repository path a doc writes in backticks exists (so a moved or renamed file is a failing test)", () => {
    const missing = docFiles().flatMap((doc) =>
      [
        ...read(doc).matchAll(
          /`((?:app|lib|components|tests|scripts|e2e|deploy|lint|prompts|messages|drizzle|drizzle-pg)\/[^`\s]*)`/g,
        ),
      ]
        .map((m) => m[1] ?? "")
        .filter((p) => !/[*<{]/.test(p))
        .map((p) => (p.split(":")[0] ?? p).replace(/[.,]$/, ""))
        .filter((p) => !MODULE_SUFFIXES.some((suffix) => fs.existsSync(path.join(ROOT, p + suffix))))
        .map((p) => `${doc}: ${p}`),
    );
    expect(missing).toEqual([]);
  });
});

describe("docs/api.md documents every route", () => {
  const METHOD = /^export const (GET|POST|PATCH|PUT|DELETE)\b/gm;
  const normalise = (route: string): string => route.replace(/\?.*$/, "").replace(/:\w+/g, ":param");

  function documentedRoutes(): Set<string> {
    const routes = new Set<string>();
    for (const m of read("docs/api.md").matchAll(
      /`((?:GET|POST|PATCH|PUT|DELETE)(?:\/(?:GET|POST|PATCH|PUT|DELETE))*) (\/api\/[^`\s]*)`/g,
    )) {
      const [, methods = "", route = ""] = m;
      for (const method of methods.split("/")) routes.add(`${method} ${normalise(route)}`);
    }
    return routes;
  }

  it("lists each method of each app/api route handler", () => {
    const handlers = walk("app/api", (f) => f.endsWith("route.ts")).flatMap((file) => {
      const route = `/${path.dirname(file).split(path.sep).slice(1).join("/")}`.replace(/\[(\w+)\]/g, ":$1");
      return [...read(file).matchAll(METHOD)].map((m) => `${m[1]} ${normalise(route)}`);
    });
    expect(handlers.length).toBeGreaterThan(40);
    const documented = documentedRoutes();
    expect(handlers.filter((h) => !documented.has(h))).toEqual([]);
  });
});
