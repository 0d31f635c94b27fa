"use client";

import { Brain } from "lucide-react";
import { useEffect, useState } from "react";
import useSWR from "swr";
import { useTranslations } from "use-intl";
import { useErrorText } from "@/components/ui/use-error-text";
import { dismissalsKey, MEMORIES_KEY, memoriesApi } from "@/lib/client/api/memories";
import type { TimelineEntry } from "@/lib/client/run-view";
import type { MemoryNote } from "@/lib/protocol/run-events";
import { type ChipState, chipState } from "./memory-chip-state";

/**
 * Under an answer, what its run's `remember` calls did (docs/architecture.md, "Projects and
 * memory"): a memory saved, with Undo, or one proposed, with Save and Dismiss. Read from the run's
 * steps, so each shows as soon as its step streams in, and after a reload; whether a memory is
 * still kept, or a proposal was saved or dismissed, comes from the server (`chipState`), so the
 * stored answer that replaces the live one shows the same. Saved and dismissed by the run, which
 * the live answer has before its message is stored.
 */
export function MemoryChips({
  timeline,
  runId,
  messageId,
}: {
  timeline: TimelineEntry[];
  runId: string | null;
  messageId: string | null;
}) {
  const notes = timeline.flatMap((entry) =>
    entry.kind === "tool" && entry.result?.memory ? [{ key: entry.key, note: entry.result.memory }] : [],
  );
  const memories = useSWR(notes.length > 0 ? MEMORIES_KEY : null, memoriesApi.memories);
  const proposals = runId !== null && notes.some(({ note }) => note.status === "proposed");
  const dismissals = useSWR(proposals && runId ? dismissalsKey(runId) : null, () =>
    runId ? memoriesApi.dismissals(runId) : null,
  );
  // A list read before a note streamed in (another answer's chips, Settings) does not know its
  // memory yet: the server's state counts only once read again after the newest note.
  const noteKeys = notes.map(({ key }) => key).join(" ");
  const [checked, setChecked] = useState<string | null>(null);
  const { mutate: reloadMemories } = memories;
  const { mutate: reloadDismissals } = dismissals;
  useEffect(() => {
    if (!noteKeys) return;
    let current = true;
    const done = () => {
      if (current) setChecked(noteKeys);
    };
    Promise.all([reloadMemories(), reloadDismissals()]).then(done, done);
    return () => {
      current = false;
    };
  }, [noteKeys, reloadMemories, reloadDismissals]);
  const fresh = checked === noteKeys;
  if (notes.length === 0) return null;
  return (
    <div className="mt-2 flex flex-wrap gap-2" data-testid="memory-chips">
      {notes.map(({ key, note }) => (
        <MemoryChip
          key={key}
          note={note}
          runId={runId}
          derived={chipState(note, {
            kept: fresh ? (memories.data?.memories ?? null) : null,
            dismissed: fresh ? (dismissals.data?.dismissed ?? null) : null,
            runId,
            messageId,
          })}
          source={runId ? { runId } : messageId ? { messageId } : {}}
          ready={fresh}
          reload={() => Promise.all([memories.mutate(), dismissals.mutate()])}
        />
      ))}
    </div>
  );
}

function MemoryChip({
  note,
  runId,
  derived,
  source,
  ready,
  reload,
}: {
  note: MemoryNote;
  runId: string | null;
  /** What the server's state says (`chipState`); the chip's own last action wins until that catches up. */
  derived: ChipState;
  /** What a saved proposal names: its run, else (an answer without one) its answer. */
  source: { runId: string } | { messageId: string } | Record<string, never>;
  /** The server's state is known: until then a proposal's Save and Dismiss wait. */
  ready: boolean;
  reload: () => Promise<unknown>;
}) {
  const t = useTranslations("memory");
  const errorText = useErrorText();
  const [state, setState] = useState<ChipState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const shown: ChipState = state ?? derived;

  const act = async (work: () => Promise<ChipState>) => {
    setBusy(true);
    setError(null);
    try {
      setState(await work());
      await reload();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  const button = "rounded-md px-1.5 py-0.5 font-medium underline-offset-2 hover:underline disabled:opacity-50";
  return (
    <div
      data-testid="memory-chip"
      data-state={shown.kind}
      className="inline-flex max-w-full items-center gap-1.5 rounded-full border border-border bg-muted/40 px-2.5 py-1 text-xs"
    >
      <Brain aria-hidden className="size-3.5 shrink-0 text-muted-foreground" />
      <span className="font-medium">
        {shown.kind === "saved"
          ? t("saved")
          : shown.kind === "undone"
            ? t("undone")
            : shown.kind === "dismissed"
              ? t("dismissed")
              : t("proposed")}
      </span>
      <span className="min-w-0 truncate text-muted-foreground">{note.text}</span>
      {shown.kind === "saved" ? (
        <button
          type="button"
          className={button}
          disabled={busy}
          data-testid="memory-undo"
          onClick={() =>
            void act(async () => {
              await memoriesApi.deleteMemory(shown.id);
              return { kind: "undone" };
            })
          }
        >
          {t("undo")}
        </button>
      ) : null}
      {shown.kind === "proposed" ? (
        <>
          <button
            type="button"
            className={button}
            disabled={busy || !ready}
            data-testid="memory-save-proposal"
            onClick={() =>
              void act(async () => {
                const { memory } = await memoriesApi.createMemory({ text: note.text, ...source });
                return { kind: "saved", id: memory.id };
              })
            }
          >
            {t("saveProposal")}
          </button>
          <button
            type="button"
            className={button}
            disabled={busy || !ready}
            data-testid="memory-dismiss"
            onClick={() =>
              void act(async () => {
                if (runId) await memoriesApi.dismissProposal({ runId, text: note.text });
                return { kind: "dismissed" };
              })
            }
          >
            {t("dismiss")}
          </button>
        </>
      ) : null}
      {error ? (
        <span role="alert" className="text-red-700 dark:text-red-300">
          {error}
        </span>
      ) : null}
    </div>
  );
}
