/**
 * A run's stored sources (docs/research.md, "The source store"): every page and file a run's tools
 * read, with the text of every part it read, kept in the database so an answer's `[n]` citations
 * can be checked, opened and exported after a reload, on another instance and after an import.
 * Framework-free: the server stores and serves these shapes, the browser and the import check them.
 */

import { z } from "./zod";

const count = z.number().int().min(0);

/** The PDF pages a part came from (pdf_to_text's paging). */
export const sourcePagesSchema = z.object({ first: count, last: count, total: count });
export type SourcePages = z.infer<typeof sourcePagesSchema>;

/** One read of a source: where its text lies in the source's `text`, and the PDF pages it came from. */
export const sourcePartSchema = z.object({
  start: count,
  end: count,
  pages: sourcePagesSchema.optional(),
});
export type SourcePart = z.infer<typeof sourcePartSchema>;

/** A source as listed: everything but its text. */
export const sourceSummarySchema = z.object({
  /** The run's source number: what the answer's `[n]` names. */
  n: z.number().int().min(1),
  /** An http(s) URL, or `attachment:<id>` for a file of the conversation. */
  url: z.string(),
  title: z.string(),
  /** When the run first read it (epoch ms). */
  retrievedAt: z.number(),
  /** SHA-256 (hex) of `text`: the same text read again hashes the same. */
  contentHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** The length of `text`. */
  chars: count,
});
export type SourceSummary = z.infer<typeof sourceSummarySchema>;

/** A stored source with the text of every part read, in the order read, parts joined by a blank line. */
export const storedSourceSchema = sourceSummarySchema.extend({
  text: z.string(),
  parts: z.array(sourcePartSchema),
});
export type StoredSource = z.infer<typeof storedSourceSchema>;
