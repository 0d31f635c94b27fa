import type { SseEvent } from "@/lib/http/sse";

/**
 * A run in progress, as seen by the web layer: its event log, its live subscribers and the abort
 * controller that Stop uses. Stored events get a sequence number (SSE `id`); answer deltas do not,
 * since they are not stored (SPEC §4) — the log keeps them so a subscriber joining late sees the
 * same stream from the start.
 */
export class LiveRun {
  readonly controller = new AbortController();
  private readonly log: SseEvent[] = [];
  private readonly listeners = new Set<(event: SseEvent) => void>();
  private readonly endListeners = new Set<() => void>();
  private seq = 0;
  private ended = false;

  constructor(
    readonly runId: string,
    readonly conversationId: string,
    private readonly persist: (event: Required<SseEvent>) => void,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /**
   * Emits an event; `store: false` is for answer deltas. `withSeq` puts the sequence number into
   * the data too, as `step` events carry it (SPEC §12).
   */
  emit(
    event: string,
    data: unknown,
    { store = true, withSeq = false }: { store?: boolean; withSeq?: boolean } = {},
  ): void {
    if (this.ended) return;
    const id = store ? ++this.seq : undefined;
    const payload = withSeq && id !== undefined ? { seq: id, ...(data as object) } : data;
    const entry: SseEvent = id === undefined ? { event, data: payload } : { event, data: payload, id };
    if (store) this.persist(entry as Required<SseEvent>);
    this.log.push(entry);
    for (const listener of this.listeners) listener(entry);
  }

  /** No more events after this; subscribers are closed. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const listener of this.endListeners) listener();
    this.listeners.clear();
    this.endListeners.clear();
  }

  /** Replays the log (stored events after `after`, and every delta), then follows live events. */
  subscribe(send: (event: SseEvent) => void, close: () => void, after = 0): () => void {
    for (const entry of this.log) {
      if (entry.id === undefined || entry.id > after) send(entry);
    }
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

/** The runs of this process, by conversation; at most one runs per conversation. */
export class LiveRuns {
  private readonly byConversation = new Map<string, LiveRun>();
  private readonly byRun = new Map<string, LiveRun>();

  forConversation(conversationId: string): LiveRun | undefined {
    return this.byConversation.get(conversationId);
  }

  get(runId: string): LiveRun | undefined {
    return this.byRun.get(runId);
  }

  get size(): number {
    return this.byConversation.size;
  }

  add(run: LiveRun): void {
    this.byConversation.set(run.conversationId, run);
    this.byRun.set(run.runId, run);
  }

  remove(run: LiveRun): void {
    if (this.byConversation.get(run.conversationId) === run) this.byConversation.delete(run.conversationId);
    this.byRun.delete(run.runId);
  }
}
