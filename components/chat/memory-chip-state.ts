import type { MemoryNote } from "@/lib/protocol/run-events";

/** What one memory chip under an answer shows (docs/architecture.md, "Projects and memory"). */
export type ChipState =
  | { kind: "saved"; id: string }
  | { kind: "proposed" }
  | { kind: "undone" }
  | { kind: "dismissed" };

/** A memory of the user's, as the chips compare it with a run's notes. */
export interface KeptMemory {
  id: string;
  text: string;
  runId: string | null;
  messageId: string | null;
}

/**
 * A chip's state from what the server keeps: the user's memories and the run's dismissed proposals
 * (each null while it loads). A saved memory is kept until it is gone from the list (Undo, or
 * deleted in Settings). A proposal is saved once a memory of its text names its run — however
 * and whenever it was saved, while the answer streamed or after — or, for a memory saved before
 * memories named their run, its answer; else it is dismissed or still proposed. The same inputs
 * give the same state whether the answer is the live one or the stored one that replaces it.
 */
export function chipState(
  note: MemoryNote,
  {
    kept,
    dismissed,
    runId,
    messageId,
  }: { kept: KeptMemory[] | null; dismissed: string[] | null; runId: string | null; messageId: string | null },
): ChipState {
  if (note.status === "saved") {
    return kept && !kept.some((memory) => memory.id === note.id) ? { kind: "undone" } : { kind: "saved", id: note.id };
  }
  const saved = kept?.find(
    (memory) =>
      memory.text === note.text &&
      ((runId !== null && memory.runId === runId) || (messageId !== null && memory.messageId === messageId)),
  );
  if (saved) return { kind: "saved", id: saved.id };
  return dismissed?.includes(note.text) ? { kind: "dismissed" } : { kind: "proposed" };
}
