import type { RunStart } from "@/lib/db/runs";
import type { RunEventData, RunEventName, ScopedStep, SentRunEvent } from "@/lib/protocol/run-events";
import { AnswerStream } from "./answer-stream";
import { type InterruptLimits, InterruptQueue } from "./interrupt-queue";
import { type BusyRetries, RunWrites } from "./run-writes";
import { StartTurns } from "./start-turns";
import { PendingApprovals } from "./tool-approval";
import { UnendedRuns } from "./unended-runs";

export interface LiveRunOptions {
  runId: string;
  conversationId: string;
  /** Stores an event of the run (not answer deltas); called only once the run has started, one at a time, in order. */
  persist: (event: SentRunEvent, seq: number) => Promise<void>;
  /** The account the run belongs to (null in single-user mode), for the per-user run cap. */
  ownerId?: string | null;
  interruptLimits: InterruptLimits;
  /** How a write that finds the database busy (another process's lock) is tried again (never by default). */
  busyRetries?: BusyRetries;
  /** Saves the answer streamed so far (crash recovery reads it); without it the text is only kept here. */
  savePartialAnswer?: (text: string) => Promise<unknown>;
}

/**
 * A run as seen by the web layer, from the moment its slot is reserved: its event log, its live
 * subscribers, its answer stream, its interrupt queue, its writes and the abort controller that Stop
 * uses. A reservation until `markStarted` (its row exists); Stop meanwhile is honoured at the start.
 * Stored events get a sequence number N (SSE id "N"); answer deltas are not stored and get "N.k",
 * the k-th delta after stored event N, so a client can resume exactly where it was with `?after=`
 * (or Last-Event-ID).
 */
export class LiveRun {
  readonly controller = new AbortController();
  readonly interrupts: InterruptQueue;
  /** Tool calls waiting for the user's approval; the approvals route decides them. */
  readonly approvals = new PendingApprovals();
  readonly runId: string;
  readonly conversationId: string;
  readonly ownerId: string | null;
  private readonly persist: LiveRunOptions["persist"];
  /** The run's writes, one after the other; the engine does not wait for them. */
  private readonly writes: RunWrites;
  private readonly log: SentRunEvent[] = [];
  private readonly listeners = new Set<(event: SentRunEvent) => void>();
  private readonly endListeners = new Set<() => void>();
  private seq = 0;
  /** Stored events that someone else wrote (a shutdown at exit): the run's queued write of each is skipped. */
  private readonly storedElsewhere = new Set<number>();
  private deltasSinceSeq = 0;
  private started = false;
  private startedRun: RunStart | undefined;
  private ended = false;
  private endIsClaimed = false;
  /** The answer streamed so far: its one writer is the run, and whoever ends the run stores its text. */
  readonly answer: AnswerStream;
  /** The id of the assistant message the run ends with, whoever stores it; `done` announces it. */
  readonly messageId = crypto.randomUUID();
  private resolveStartSettled = () => {};
  /** Settles once the reserved start has stored its run (`markStarted`) or given its slot back. */
  readonly startSettled = new Promise<void>((resolve) => {
    this.resolveStartSettled = resolve;
  });

  constructor(options: LiveRunOptions) {
    this.runId = options.runId;
    this.conversationId = options.conversationId;
    this.ownerId = options.ownerId ?? null;
    this.persist = options.persist;
    this.writes = new RunWrites(options.runId, options.busyRetries);
    this.interrupts = new InterruptQueue(options.interruptLimits);
    const save = options.savePartialAnswer;
    this.answer = new AnswerStream({
      emit: (part, store) => this.emit("answer", part, { store }),
      savePartial: (text) => save && this.queueWrite(() => save(text), "the partial answer"),
    });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Who follows the run now: its clients on this instance and other instances forwarding it. */
  get subscriberCount(): number {
    return this.listeners.size;
  }

  /** Whether the run exists in the database (not only its reserved slot). */
  get isStarted(): boolean {
    return this.started;
  }

  /** The run's row, once stored: what ending it needs, without reading it (a shutdown at exit cannot). */
  get run(): RunStart | undefined {
    return this.startedRun;
  }

  markStarted(run: RunStart): void {
    this.started = true;
    this.startedRun = run;
    this.answer.startSaving();
    this.resolveStartSettled();
  }

  /** The start failed before storing anything: its slot was given back (`LiveRuns.release`). */
  markNotStarted(): void {
    this.resolveStartSettled();
  }

  /**
   * Who ends the run — the run itself, Stop through it, a shutdown, an account's removal, a survivor
   * taking over a dead instance's runs — claims it here: true for the first caller only, who stores
   * the run's end (its assistant message, `messageId`); every later one stores nothing of it.
   */
  claimEnd(): boolean {
    if (this.endIsClaimed) return false;
    this.endIsClaimed = true;
    return true;
  }

  /** Whether someone has claimed the run's end (`claimEnd`). */
  get endClaimed(): boolean {
    return this.endIsClaimed;
  }

  /** Emits an event; `store: false` is for answer deltas. Returns it as sent, or undefined once ended. */
  emit<K extends RunEventName>(
    event: K,
    data: RunEventData<K>,
    { store = true }: { store?: boolean } = {},
  ): SentRunEvent | undefined {
    if (this.ended) return undefined;
    let entry: SentRunEvent;
    // The union cannot follow a generic K; `event` and `data` belong together by the signature.
    if (store) {
      const seq = ++this.seq;
      this.deltasSinceSeq = 0;
      entry = { event, data, id: String(seq) } as SentRunEvent;
      const stored = entry;
      this.queueWrite(async () => {
        if (!this.storedElsewhere.has(seq)) await this.persist(stored, seq);
      }, `event ${seq}`);
    } else {
      entry = { event, data, id: `${this.seq}.${++this.deltasSinceSeq}` } as SentRunEvent;
    }
    this.log.push(entry);
    for (const listener of this.listeners) listener(entry);
    return entry;
  }

  /**
   * Queues a write of the run after its earlier ones (its events, the interrupts it takes): they
   * reach the database in the order they happened. A failure is logged and kept for `writesSettled`.
   */
  queueWrite(write: () => Promise<unknown>, what: string): void {
    this.writes.add(write, what);
  }

  /** From now on a busy database fails a write at once: the run's end is stored when it is free. */
  stopBusyRetries(): void {
    this.writes.stopBusyRetries();
  }

  /** Once every write queued so far has settled: the failures among them, oldest first. */
  writesSettled(): Promise<unknown[]> {
    return this.writes.settled();
  }

  /** This emitted event was stored by someone else (a shutdown at exit, which cannot wait): its queued write is skipped. */
  markStored(event: SentRunEvent): void {
    this.storedElsewhere.add(Number(event.id));
  }

  /** Emits a `step` event: the step numbered with its place among the stored events. */
  emitStep(step: ScopedStep, at: number): void {
    this.emit("step", { ...step, seq: this.seq + 1, at });
  }

  /** No more events after this; subscribers are closed. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const listener of this.endListeners) listener();
    this.listeners.clear();
    this.endListeners.clear();
  }

  /** Replays the log after the event with id `after` ("N" or "N.k"; "0" or "" from the start), then follows. */
  subscribe(send: (event: SentRunEvent) => void, close: () => void, after = "0"): () => void {
    const position = after && after !== "0" ? this.log.findIndex((entry) => entry.id === after) : -1;
    for (const entry of this.log.slice(position + 1)) send(entry);
    if (this.ended) {
      close();
      return () => {};
    }
    this.listeners.add(send);
    this.endListeners.add(close);
    return () => {
      this.listeners.delete(send);
      this.endListeners.delete(close);
    };
  }
}

/** How many runs may go at once: per account (null = the single user) and in the whole process. */
export interface RunLimits {
  perUser: number;
  total: number;
}

/** Why a slot was refused: the conversation already has a run, or a cap is reached. */
export type SlotRefusal = "conversation" | "per_user" | "total";

/**
 * The runs of this process, by conversation; at most one runs per conversation. A slot is taken
 * by `reserve`, synchronously, before a start awaits anything, so parallel starts cannot all pass
 * the checks. A finished run stays reachable by id for a grace period, so a client that dropped
 * just before the end can still resume exactly where it was (its deltas are not in the database).
 */
export class LiveRuns {
  private readonly byConversation = new Map<string, LiveRun>();
  private readonly byRun = new Map<string, LiveRun>();
  /** Starts past their slot reservation take turns on the event loop here. */
  readonly starts = new StartTurns();
  /** Runs whose end could not be stored, until their rows are marked failed. */
  readonly unended = new UnendedRuns();
  /** The app instance holding these runs, stored as each run's owner; null without a cluster (SQLite). */
  instanceId: string | null = null;
  /** Accounts being removed: their starts store nothing (`beginTurn`). */
  private readonly removing = new Set<string>();

  constructor(private readonly graceMs = 60_000) {}

  forConversation(conversationId: string): LiveRun | undefined {
    return this.byConversation.get(conversationId);
  }

  get(runId: string): LiveRun | undefined {
    return this.byRun.get(runId);
  }

  /** Runs going or reserved. */
  get size(): number {
    return this.byConversation.size;
  }

  /** The runs going or reserved. */
  active(): LiveRun[] {
    return [...this.byConversation.values()];
  }

  /** One account's runs, going or reserved. */
  ownedBy(ownerId: string | null): LiveRun[] {
    return this.active().filter((run) => run.ownerId === ownerId);
  }

  countFor(ownerId: string | null): number {
    return this.ownedBy(ownerId).length;
  }

  /** Refuses the account's starts until the returned function is called (its removal is done). */
  refuseStartsOf(ownerId: string): () => void {
    this.removing.add(ownerId);
    return () => this.removing.delete(ownerId);
  }

  isBeingRemoved(ownerId: string | null): boolean {
    return ownerId !== null && this.removing.has(ownerId);
  }

  /** Takes the run's slot if its conversation is free and no cap is reached; else says why not. */
  reserve(run: LiveRun, limits: RunLimits): SlotRefusal | null {
    if (this.byConversation.has(run.conversationId)) return "conversation";
    if (this.countFor(run.ownerId) >= limits.perUser) return "per_user";
    if (this.byConversation.size >= limits.total) return "total";
    this.byConversation.set(run.conversationId, run);
    this.byRun.set(run.runId, run);
    return null;
  }

  /** A start that failed gives its slot back at once; nothing of it is kept. */
  release(run: LiveRun): void {
    if (this.byConversation.get(run.conversationId) === run) this.byConversation.delete(run.conversationId);
    if (this.byRun.get(run.runId) === run) this.byRun.delete(run.runId);
    run.markNotStarted();
  }

  /** The conversation is free for a new run at once; the finished run's log lingers for the grace period. */
  remove(run: LiveRun): void {
    if (this.byConversation.get(run.conversationId) === run) this.byConversation.delete(run.conversationId);
    const forget = () => {
      if (this.byRun.get(run.runId) === run) this.byRun.delete(run.runId);
    };
    if (this.graceMs <= 0) forget();
    else setTimeout(forget, this.graceMs).unref();
  }
}
