"use client";

import { Brain } from "lucide-react";
import { useState } from "react";
import useSWR from "swr";
import { useTranslations } from "use-intl";
import { useErrorText } from "@/components/ui/use-error-text";
import { MEMORIES_KEY, memoriesApi } from "@/lib/client/api/memories";
import type { TimelineEntry } from "@/lib/client/run-view";
import type { MemoryNote } from "@/lib/protocol/run-events";

/**
 * Under an answer, what its run's `remember` calls did (docs/architecture.md, "Projects and
 * memory"): a memory saved, with Undo, or one proposed, with Save and Dismiss. Read from the run's
 * steps, so a reload shows them; whether a memory is still kept comes from the user's memories.
 */
export function MemoryChips({ timeline, messageId }: { timeline: TimelineEntry[]; messageId: string | null }) {
  const notes = timeline.flatMap((entry) =>
    entry.kind === "tool" && entry.result?.memory ? [{ key: entry.key, note: entry.result.memory }] : [],
  );
  const memories = useSWR(notes.length > 0 ? MEMORIES_KEY : null, memoriesApi.memories);
  if (notes.length === 0) return null;
  return (
    <div className="mt-2 flex flex-wrap gap-2" data-testid="memory-chips">
      {notes.map(({ key, note }) => (
        <MemoryChip
          key={key}
          note={note}
          messageId={messageId}
          kept={memories.data?.memories ?? null}
          reload={() => memories.mutate()}
        />
      ))}
    </div>
  );
}

type ChipState = { kind: "saved"; id: string } | { kind: "proposed" } | { kind: "undone" } | { kind: "dismissed" };

function initialState(note: MemoryNote, kept: { id: string; text: string; messageId: string | null }[] | null) {
  if (note.status === "saved") return kept && !kept.some((m) => m.id === note.id) ? "undone" : "saved";
  return kept?.some((m) => m.text === note.text && m.messageId !== null) ? "saved" : "proposed";
}

function MemoryChip({
  note,
  messageId,
  kept,
  reload,
}: {
  note: MemoryNote;
  messageId: string | null;
  kept: { id: string; text: string; messageId: string | null }[] | null;
  reload: () => Promise<unknown>;
}) {
  const t = useTranslations("memory");
  const errorText = useErrorText();
  const [state, setState] = useState<ChipState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const savedId =
    note.status === "saved"
      ? note.id
      : (kept?.find((m) => m.text === note.text && m.messageId === messageId)?.id ?? null);
  const shown: ChipState =
    state ??
    (initialState(note, kept) === "saved" && savedId
      ? { kind: "saved", id: savedId }
      : initialState(note, kept) === "undone"
        ? { kind: "undone" }
        : { kind: "proposed" });

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
            disabled={busy}
            data-testid="memory-save-proposal"
            onClick={() =>
              void act(async () => {
                const { memory } = await memoriesApi.createMemory({
                  text: note.text,
                  ...(messageId ? { messageId } : {}),
                });
                return { kind: "saved", id: memory.id };
              })
            }
          >
            {t("saveProposal")}
          </button>
          <button
            type="button"
            className={button}
            disabled={busy}
            data-testid="memory-dismiss"
            onClick={() => setState({ kind: "dismissed" })}
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
