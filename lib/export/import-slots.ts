import type { OwnerId } from "@/lib/db/conversations";
import { AppError } from "@/lib/errors";
import { once } from "@/lib/util/once";
import { processSingleton } from "@/lib/util/process-singleton";

/**
 * Imports running on this app instance, each holding its upload and one conversation's JSON in
 * memory: at most `perUser` for one user and `total` in all, taken before the body is read.
 * One count per process (`processSingleton`), like the live runs: Next.js may load this module once per bundle.
 */

interface ImportCounts {
  total: number;
  byOwner: Map<string, number>;
}

const counts = processSingleton<ImportCounts>("importCounts", () => ({ total: 0, byOwner: new Map() }))();

/** How long a refused import is told to wait: about what a large import takes. */
const RETRY_AFTER_SECONDS = 10;

/** Takes an import's slot, or throws the 429 that says whose imports fill them; returns its release. */
export function takeImportSlot(ownerId: OwnerId, limits: { perUser: number; total: number }): () => void {
  const owner = ownerId ?? "";
  const own = counts.byOwner.get(owner) ?? 0;
  if (own >= limits.perUser) {
    throw new AppError(
      "rate_limited:imports_per_user",
      limits.perUser === 1
        ? "One of your imports is still running. Wait for it to finish, then import this file."
        : `${limits.perUser} of your imports are still running. Wait for one to finish, then import this file.`,
      { retryable: true, details: { retryAfterSeconds: RETRY_AFTER_SECONDS, max: limits.perUser } },
    );
  }
  if (counts.total >= limits.total) {
    throw new AppError("rate_limited:imports_total", "The server is busy with other imports. Retry in a few seconds.", {
      retryable: true,
      details: { retryAfterSeconds: RETRY_AFTER_SECONDS, max: limits.total },
    });
  }
  counts.byOwner.set(owner, own + 1);
  counts.total += 1;
  return once(() => {
    counts.total -= 1;
    const left = (counts.byOwner.get(owner) ?? 1) - 1;
    if (left > 0) counts.byOwner.set(owner, left);
    else counts.byOwner.delete(owner);
  });
}
