import { isDatabaseBusy } from "@/lib/db/busy";
import { backoffDelay } from "@/lib/util/backoff";

/** How often a write that finds the database busy is tried again: first after `delayMs`, then twice as long each time. */
export interface BusyRetries {
  attempts: number;
  delayMs: number;
}

/**
 * A run's writes (its events, the follow-ups it takes, its partial answer, a compaction summary),
 * one after the other in the order they were queued, without the engine waiting for them
 * (docs/architecture.md, "Persistence"). A failure is logged and kept for `settled`: the run's end
 * reads it there and fails the run, since a reload would not show all of it.
 */
export class RunWrites {
  private queue: Promise<void> = Promise.resolve();
  private readonly failures: unknown[] = [];
  /** Off for the run's last events: its end does not wait for a lock (docs/api.md). */
  private retryBusy = true;

  constructor(
    private readonly runId: string,
    private readonly busyRetries: BusyRetries = { attempts: 0, delayMs: 0 },
  ) {}

  /** Queues a write after the earlier ones; `what` names it in the log when it fails. */
  add(write: () => Promise<unknown>, what: string): void {
    this.queue = this.queue
      .then(() => this.writeRetryingBusy(write))
      .then(
        () => undefined,
        (error: unknown) => {
          console.error(`[run] could not store ${what} of run ${this.runId}`, error);
          this.failures.push(error);
        },
      );
  }

  /** A busy database is retried with a growing delay; still busy after the last attempt, the write is lost. */
  private async writeRetryingBusy(write: () => Promise<unknown>): Promise<void> {
    const { attempts, delayMs } = this.busyRetries;
    for (let attempt = 0; ; attempt++) {
      try {
        await write();
        return;
      } catch (error) {
        if (!isDatabaseBusy(error) || !this.retryBusy || attempt >= attempts) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, backoffDelay(attempt, { firstMs: delayMs })));
    }
  }

  /** From now on a busy database fails a write at once: the run's end is stored when it is free. */
  stopBusyRetries(): void {
    this.retryBusy = false;
  }

  /** Once every write queued so far has settled: the failures among them, oldest first. */
  async settled(): Promise<unknown[]> {
    await this.queue;
    return [...this.failures];
  }
}
