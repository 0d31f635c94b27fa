import "server-only";
import type { Db } from "@/lib/db/client";
import { finishRun, getRun, runsElsewhereOf } from "@/lib/db/runs";
import { deleteUser, markRemoving } from "@/lib/db/users";
import { AppError } from "@/lib/errors";
import { getLiveRuns } from "./chat-service";
import type { LiveRun, LiveRuns } from "./live-run";

const ACCOUNT_REMOVED = "The account was removed, so this answer was stopped.";

/**
 * Removes an account with everything it owns, its runs ended first so that none writes to rows that
 * are about to vanish. From its first moment the account's starts that have not stored their run are
 * refused (404) when they come to; one already reserved (or reserved while the removal waits) is aborted
 * and awaited, so that it is either refused or one of the runs ended. Every run is ended even when
 * storing one fails. Each running answer is stored as stopped, and its subscribers get
 * an `error` and a `done` before the stream closes. Only then is the account deleted. While one of
 * its runs goes on on another app instance, the removal is refused (409) and changes nothing.
 *
 * Other instances' starts are refused by the account's mark in the database (`users.removing_at`,
 * checked where a start holds its conversation: `holdAccount`), set before that check: a start
 * stored its run before the mark (and the check sees the run) or sees the mark (404). The mark is
 * taken off when the removal is refused or fails; a removal cut off by a crash leaves it, and the
 * account refuses new answers until it is removed again.
 */
export async function removeAccount(db: Db, userId: string, liveRuns = getLiveRuns()): Promise<void> {
  await markRemoving(db, userId);
  let removed = false;
  const allowStarts = liveRuns.refuseStartsOf(userId);
  try {
    // This instance cannot end them, and their rows would vanish under them.
    if (await runsElsewhereOf(db, { ownerId: userId, instanceId: liveRuns.instanceId })) {
      throw new AppError(
        "conflict:run_active",
        "This account has answers running on another server. Remove it once they are done (or stopped).",
      );
    }
    // A chat sent while the removal waits for a start may take a slot meanwhile: wait until none is left.
    for (let starting = unstarted(liveRuns, userId); starting.length > 0; starting = unstarted(liveRuns, userId)) {
      for (const live of starting) live.controller.abort(new DOMException(ACCOUNT_REMOVED, "AbortError"));
      await Promise.all(starting.map((live) => live.startSettled));
    }
    const ending = await Promise.allSettled(
      liveRuns
        .ownedBy(userId)
        .filter((live) => live.isStarted)
        .map((live) => endForRemoval(db, live, liveRuns)),
    );
    const failed = ending.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    await deleteUser(db, userId);
    removed = true;
  } finally {
    allowStarts();
    if (!removed) {
      await markRemoving(db, userId, false).catch((error: unknown) =>
        console.error(`[accounts] could not take the removal mark off account ${userId}`, error),
      );
    }
  }
}

function unstarted(liveRuns: LiveRuns, userId: string): LiveRun[] {
  return liveRuns.ownedBy(userId).filter((live) => !live.isStarted);
}

/**
 * Stores the run as stopped (unless it stored its message already), tells its subscribers and closes
 * their streams at once: nothing the run still streams comes after its `done`.
 */
async function endForRemoval(db: Db, live: LiveRun, liveRuns: LiveRuns): Promise<void> {
  const storesItsEnd = live.claimEnd();
  live.interrupts.close();
  if (storesItsEnd) {
    await live.writesSettled();
    await finishRun(db, {
      runId: live.runId,
      messageId: live.messageId,
      status: "stopped",
      iterations: 0,
      inputTokens: 0,
      outputTokens: 0,
      error: ACCOUNT_REMOVED,
      answer: live.answer.text,
    });
  }
  const run = await getRun(db, { id: live.runId });
  live.emit("error", { code: "not_found:account", message: ACCOUNT_REMOVED, retryable: false });
  live.emit("done", {
    messageId: live.messageId,
    iterations: run.iterations,
    usage: {
      inputTokens: run.inputTokens,
      outputTokens: run.outputTokens,
      totalTokens: run.inputTokens + run.outputTokens,
    },
    elapsedMs: run.elapsedMs ?? 0,
    stopped: true,
  });
  live.controller.abort(new DOMException(ACCOUNT_REMOVED, "AbortError"));
  live.end();
  liveRuns.remove(live);
  await live.writesSettled();
}
