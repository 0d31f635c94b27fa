import "server-only";
import type { Db } from "@/lib/db/client";
import { failUnendedRun } from "@/lib/db/unended-runs";
import { backoffDelay } from "@/lib/util/backoff";

interface UnendedRun {
  runId: string;
  error: string;
}

/**
 * Runs of this process whose end could not be stored (docs/architecture.md, "Persistence"): their
 * rows still say `running`, which the database's one-running-run index would hold against every
 * next turn of the conversation. Each is marked failed at once, then again with a growing delay;
 * until that goes through, the next start in its conversation marks it failed in its own transaction.
 */
export class UnendedRuns {
  private readonly byConversation = new Map<string, UnendedRun>();

  /** Resolves after the first attempt; the retries (first after `delayMs`, then twice as long each time) go on. */
  async add(
    db: Db,
    conversationId: string,
    run: UnendedRun,
    retries: { attempts: number; delayMs: number },
  ): Promise<void> {
    this.byConversation.set(conversationId, run);
    const attempt = async (number: number): Promise<void> => {
      try {
        await this.end(db, conversationId, run);
      } catch (error) {
        console.error(`[run] could not mark run ${run.runId} failed`, error);
        if (number < retries.attempts) {
          setTimeout(() => void attempt(number + 1), backoffDelay(number, { firstMs: retries.delayMs })).unref();
        }
      }
    };
    await attempt(0);
  }

  /** Marks failed the run of the conversation whose end was not stored, if any: called by the conversation's next start. */
  async endFor(db: Db, conversationId: string): Promise<void> {
    const run = this.byConversation.get(conversationId);
    if (run) await this.end(db, conversationId, run);
  }

  private async end(db: Db, conversationId: string, run: UnendedRun): Promise<void> {
    await failUnendedRun(db, run);
    if (this.byConversation.get(conversationId) === run) this.byConversation.delete(conversationId);
  }
}
