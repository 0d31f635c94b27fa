import { FileSearch, FileText, Globe, type LucideIcon, Search, Wrench } from "lucide-react";

/** How a tool call reads on its card: an icon, a name a person understands, and the gist of its arguments. */
export interface ToolMeta {
  Icon: LucideIcon;
  label: string;
  summary: string;
}

type Args = Record<string, unknown>;

const asArgs = (args: unknown): Args =>
  typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Args) : {};

const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");

/** "https://example.com/a/b?c" → "example.com/a/b?c": the scheme adds nothing on a card. */
export function shortUrl(url: string): string {
  return url.replace(/^https?:\/\//i, "").replace(/\/$/, "");
}

/** `attachment:<id>` reads better as the file's name when the conversation has it. */
function source(value: string, fileNames: ReadonlyMap<string, string>): string {
  const attachment = /^attachment:(.+)$/.exec(value);
  if (attachment?.[1]) return fileNames.get(attachment[1]) ?? value;
  return shortUrl(value);
}

function firstString(args: Args): string {
  for (const value of Object.values(args)) if (text(value)) return text(value);
  return Object.keys(args).length > 0 ? JSON.stringify(args) : "";
}

const TOOLS: Record<
  string,
  { Icon: LucideIcon; label: string; summary: (args: Args, files: ReadonlyMap<string, string>) => string }
> = {
  web_search: { Icon: Search, label: "Web search", summary: (args) => text(args.query) },
  scrape_url: { Icon: Globe, label: "Read page", summary: (args) => shortUrl(text(args.url)) },
  pdf_to_text: {
    Icon: FileText,
    label: "Read PDF",
    summary: (args, files) => source(text(args.url_or_path), files),
  },
  search_and_fetch: {
    Icon: FileSearch,
    label: "Find files",
    summary: (args) =>
      [text(args.query), text(args.file_type) && `(${text(args.file_type)})`].filter(Boolean).join(" "),
  },
};

export function toolMeta(tool: string, rawArgs: unknown, fileNames: ReadonlyMap<string, string> = new Map()): ToolMeta {
  const args = asArgs(rawArgs);
  const known = TOOLS[tool];
  const summary = known ? known.summary(args, fileNames) : firstString(args);
  // A call that only continues an earlier one carries a token, not its source.
  const paging = text(args.continue_from) ? "next page" : "";
  return {
    Icon: known?.Icon ?? Wrench,
    label: known?.label ?? tool,
    summary: [summary, paging].filter(Boolean).join(" · "),
  };
}

/** The paged tools' `---page-info---` footer, split off so the card can show it as facts. */
export function splitPageInfo(observation: string): { body: string; pageInfo: [string, string][] } {
  const marker = "\n---page-info---\n";
  const at = observation.lastIndexOf(marker);
  if (at === -1) return { body: observation, pageInfo: [] };
  const pageInfo = observation
    .slice(at + marker.length)
    .split("\n")
    .map((line) => /^([\w-]+):\s*(.*)$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match): [string, string] => [match[1] ?? "", match[2] ?? ""]);
  return { body: observation.slice(0, at).trimEnd(), pageInfo };
}
