import "server-only";
import { PART_SEPARATOR, sha256, sourceRead } from "@/lib/db/run-sources";
import type { RunEvent } from "@/lib/protocol/run-events";
import type { ExportedSource } from "./format";

/**
 * A version-1 export's sources, rebuilt from its runs' steps: that version carried no source
 * store, yet every `tool_result` step that read a source holds what it read. Each read becomes a
 * part as the live store makes it (lib/db/run-sources.ts: the text without the paging footer, the
 * PDF pages; an empty read or one already stored adds no part), so the citations of an answer
 * imported from an older export open and can be checked.
 */
export function sourcesFromSteps(
  runId: string,
  events: readonly { type: string; data: Record<string, unknown> }[],
): ExportedSource[] {
  const sources = new Map<number, ExportedSource>();
  for (const event of events) {
    const read = sourceRead(runId, { event: event.type, data: event.data } as RunEvent);
    if (!read) continue;
    const { n, url, title } = read.source;
    const source = sources.get(n) ?? { n, url, title, retrievedAt: read.at, contentHash: "", chars: 0, parts: [] };
    sources.set(n, source);
    if (read.text.length === 0 || source.parts.some((part) => part.text === read.text)) continue;
    source.parts.push({
      text: read.text,
      pageFirst: read.pages?.first ?? null,
      pageLast: read.pages?.last ?? null,
      pageTotal: read.pages?.total ?? null,
    });
  }
  return [...sources.values()]
    .sort((a, b) => a.n - b.n)
    .map((source) => {
      const text = source.parts.map((part) => part.text).join(PART_SEPARATOR);
      return { ...source, contentHash: sha256(text), chars: text.length };
    });
}
