import "server-only";
import { inArray } from "drizzle-orm";
import { type CitationReport, citationReportSchema } from "@/lib/protocol/citations";
import type { Db } from "./client";
import { citationReports } from "./schema";

/**
 * What checking an answer's citations found (docs/research.md, "Checking citations"): one report per
 * assistant message, the last check's, removed with the message.
 */

/** Stores the message's report, replacing the one stored before (a later check supersedes it). */
export async function saveCitationReport(
  db: Db,
  { messageId, report }: { messageId: string; report: CitationReport },
): Promise<void> {
  const stored = citationReportSchema.parse(report);
  await db
    .insert(citationReports)
    .values({ messageId, report: stored, checkedAt: stored.checkedAt })
    .onConflictDoUpdate({ target: citationReports.messageId, set: { report: stored, checkedAt: stored.checkedAt } });
}

/**
 * The reports of these messages, by message id; a message without one is absent. A stored report
 * that no longer fits `citationReportSchema` is left out rather than sent as something it is not.
 */
export async function citationReportsOf(db: Db, messageIds: readonly string[]): Promise<Map<string, CitationReport>> {
  const reports = new Map<string, CitationReport>();
  if (messageIds.length === 0) return reports;
  const rows = await db
    .select({ messageId: citationReports.messageId, report: citationReports.report })
    .from(citationReports)
    .where(inArray(citationReports.messageId, [...messageIds]));
  for (const row of rows) {
    const parsed = citationReportSchema.safeParse(row.report);
    if (parsed.success) reports.set(row.messageId, parsed.data);
  }
  return reports;
}
