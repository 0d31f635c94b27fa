"use client";

import { Download, Pencil, Plus, Trash2 } from "lucide-react";
import { useId, useState } from "react";
import useSWR from "swr";
import { useTranslations } from "use-intl";
import { Section } from "@/components/shell/page-frame";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { BUTTON_PRIMARY, BUTTON_SECONDARY, INPUT, InlineError } from "@/components/ui/field";
import { IconButton } from "@/components/ui/icon-button";
import { Switch } from "@/components/ui/switch";
import { useErrorText } from "@/components/ui/use-error-text";
import {
  MEMORIES_KEY,
  MEMORY_SETTINGS_KEY,
  memoriesApi,
  memoriesExportUrl,
  type PublicMemory,
} from "@/lib/client/api/memories";

/**
 * Settings → Memory (docs/architecture.md, "Projects and memory"): memory on or off, "ask before
 * saving", and the user's memories — listed, added, edited, deleted (after a confirmation, as
 * every removal for good), exported as JSON.
 */
export function MemorySettings() {
  const t = useTranslations("memory");
  const errorText = useErrorText();
  const memories = useSWR(MEMORIES_KEY, memoriesApi.memories);
  const settings = useSWR(MEMORY_SETTINGS_KEY, memoriesApi.memorySettings);
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<PublicMemory | null>(null);
  const enabledId = useId();
  const askId = useId();
  const newId = useId();

  const act = async (work: () => Promise<unknown>) => {
    setError(null);
    try {
      await work();
      await memories.mutate();
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  const toggle = (change: { enabled?: boolean; askBeforeSaving?: boolean }) =>
    act(async () => settings.mutate(await memoriesApi.updateMemorySettings(change), { revalidate: false }));
  const current = settings.data?.settings;
  const list = memories.data?.memories ?? [];

  return (
    <Section title={t("section")} description={t("description")} testId="settings-memory">
      <div className="space-y-3">
        <div className="flex items-start justify-between gap-4">
          <div>
            <p id={enabledId} className="text-sm font-medium">
              {t("enabled")}
            </p>
            <p className="text-xs text-muted-foreground">{t("enabledHint")}</p>
          </div>
          <Switch
            on={current?.enabled ?? true}
            disabled={!current}
            labelledBy={enabledId}
            testId="memory-enabled"
            onChange={(enabled) => void toggle({ enabled })}
          />
        </div>
        <div className="flex items-start justify-between gap-4">
          <div>
            <p id={askId} className="text-sm font-medium">
              {t("askBeforeSaving")}
            </p>
            <p className="text-xs text-muted-foreground">{t("askBeforeSavingHint")}</p>
          </div>
          <Switch
            on={current?.askBeforeSaving ?? false}
            disabled={!current}
            labelledBy={askId}
            testId="memory-ask"
            onChange={(askBeforeSaving) => void toggle({ askBeforeSaving })}
          />
        </div>
      </div>
      <form
        className="flex gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          const text = draft.trim();
          if (!text) return;
          void act(async () => {
            await memoriesApi.createMemory({ text });
            setDraft("");
          });
        }}
      >
        <label htmlFor={newId} className="sr-only">
          {t("newMemory")}
        </label>
        <input
          id={newId}
          data-testid="memory-new"
          className={INPUT}
          value={draft}
          placeholder={t("placeholder")}
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" className={BUTTON_PRIMARY} data-testid="memory-add" disabled={!draft.trim()}>
          <Plus aria-hidden className="size-4" />
          {t("add")}
        </button>
      </form>
      {error ? <InlineError data-testid="memory-error">{error}</InlineError> : null}
      {list.length === 0 ? (
        <p className="text-sm text-muted-foreground" data-testid="memory-empty">
          {t("empty")}
        </p>
      ) : (
        <ul className="divide-y divide-border rounded-xl border border-border" data-testid="memory-list">
          {list.map((memory) => (
            <MemoryRow key={memory.id} memory={memory} act={act} onDelete={() => setDeleting(memory)} />
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t("deleteTitle")}
        text={deleting ? t("deleteText", { text: deleting.text }) : null}
        cancelLabel={t("cancel")}
        confirmLabel={t("delete")}
        testId="delete-memory-dialog"
        confirmTestId="confirm-memory-delete"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return null;
          try {
            await memoriesApi.deleteMemory(deleting.id);
            await memories.mutate();
            return null;
          } catch (failure) {
            return errorText(failure);
          }
        }}
      />
      <div className="flex items-center gap-3 text-xs text-muted-foreground">
        <span>{t("count", { count: list.length })}</span>
        <a href={memoriesExportUrl} download className={BUTTON_SECONDARY} data-testid="memory-export">
          <Download aria-hidden className="size-4" />
          {t("export")}
        </a>
      </div>
    </Section>
  );
}

function MemoryRow({
  memory,
  act,
  onDelete,
}: {
  memory: PublicMemory;
  act: (work: () => Promise<unknown>) => Promise<void>;
  /** Asks first (the confirmation is the section's). */
  onDelete: () => void;
}) {
  const t = useTranslations("memory");
  const [editing, setEditing] = useState<string | null>(null);
  const fieldId = useId();
  if (editing !== null) {
    return (
      <li className="p-3">
        <form
          className="flex gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            void act(async () => {
              await memoriesApi.updateMemory(memory.id, { text: editing });
              setEditing(null);
            });
          }}
        >
          <label htmlFor={fieldId} className="sr-only">
            {t("editLabel")}
          </label>
          <input
            id={fieldId}
            data-testid="memory-edit-text"
            className={INPUT}
            value={editing}
            onChange={(event) => setEditing(event.target.value)}
          />
          <button type="submit" className={BUTTON_PRIMARY} data-testid="memory-save" disabled={!editing.trim()}>
            {t("save")}
          </button>
          <button type="button" className={BUTTON_SECONDARY} onClick={() => setEditing(null)}>
            {t("cancel")}
          </button>
        </form>
      </li>
    );
  }
  return (
    <li className="flex items-start gap-2 p-3 text-sm" data-testid="memory-item">
      <span className="min-w-0 flex-1 break-words">
        {memory.text}
        {memory.conversationId ? <span className="ml-2 text-xs text-muted-foreground">{t("fromChat")}</span> : null}
      </span>
      <IconButton size="sm" label={t("edit")} data-testid="memory-edit" onClick={() => setEditing(memory.text)}>
        <Pencil aria-hidden className="size-3.5" />
      </IconButton>
      <IconButton size="sm" label={t("delete")} data-testid="memory-delete" onClick={onDelete}>
        <Trash2 aria-hidden className="size-3.5" />
      </IconButton>
    </li>
  );
}
