import { FileSearch, FileText, Globe, type LucideIcon, Search, Wrench } from "lucide-react";
import type { Paging } from "@/lib/protocol/run-events";
import type { SourcePages } from "@/lib/tools/page-info";

/**
 * How a tool call reads on its card: an icon, a name a person understands (a message key under
 * `tools.label` for the known tools, else the tool's own name), and the gist of its arguments.
 */
export interface ToolMeta {
  Icon: LucideIcon;
  /** The tool's name when it has no translated label. */
  label: string;
  labelKey: KnownTool | null;
  summary: string;
  /** The call only continues an earlier one (the card adds "next page"). */
  paging: boolean;
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

type KnownTool = "web_search" | "scrape_url" | "pdf_to_text" | "search_and_fetch";

const TOOLS: Record<
  KnownTool,
  { Icon: LucideIcon; summary: (args: Args, files: ReadonlyMap<string, string>) => string }
> = {
  web_search: { Icon: Search, summary: (args) => text(args.query) },
  scrape_url: { Icon: Globe, summary: (args) => shortUrl(text(args.url)) },
  pdf_to_text: {
    Icon: FileText,
    summary: (args, files) => source(text(args.url_or_path), files),
  },
  search_and_fetch: {
    Icon: FileSearch,
    summary: (args) =>
      [text(args.query), text(args.file_type) && `(${text(args.file_type)})`].filter(Boolean).join(" "),
  },
};

export function toolMeta(tool: string, rawArgs: unknown, fileNames: ReadonlyMap<string, string> = new Map()): ToolMeta {
  const args = asArgs(rawArgs);
  const key = Object.hasOwn(TOOLS, tool) ? (tool as KnownTool) : null;
  const known = key ? TOOLS[key] : null;
  return {
    Icon: known?.Icon ?? Wrench,
    label: tool,
    labelKey: key,
    summary: known ? known.summary(args, fileNames) : firstString(args),
    // A call that only continues an earlier one carries a token, not its source.
    paging: text(args.continue_from) !== "",
  };
}

/**
 * The observation without the page-info footer the model read after it: the card states what the
 * footer says from the result's paging data instead. The step says where the page's text ends
 * (`bodyChars`), so the footer is never looked for in the text.
 */
export function observationBody(observation: string, paging: Paging | null): string {
  return paging ? observation.slice(0, paging.bodyChars) : observation;
}

/** "3-5/40": the PDF pages a page of text came from, of how many. */
export function sourcePagesLabel({ first, last, total }: SourcePages): string {
  return `${first}-${last}/${total}`;
}
