"use client";

import { FileText, Loader2, Trash2, Upload } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import useSWR from "swr";
import { useTranslations } from "use-intl";
import { usePresets } from "@/components/chat-settings/preset-menu";
import { modelDisplayName } from "@/components/models/model-name";
import { ModelOptions } from "@/components/models/model-options";
import { useModels } from "@/components/models/use-models";
import { BUTTON_PRIMARY, BUTTON_SECONDARY, INPUT, InlineError } from "@/components/ui/field";
import { IconButton } from "@/components/ui/icon-button";
import { useErrorText } from "@/components/ui/use-error-text";
import { api, projectFileUrl } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import { formatBytes } from "@/lib/client/format";
import type { Project } from "@/lib/client/types";
import { uploadFile } from "@/lib/client/upload";

/**
 * A project's settings in a modal dialog (native: focus trap, Escape): its name, instructions and
 * the model and preset its new chats start with; once it exists, its files — added, listed, deleted. Creating
 * one keeps the dialog open on the new project, so its files can be added next.
 */
export function ProjectDialog({
  project,
  open,
  onClose,
  onSaved,
}: {
  /** null: a new project. */
  project: Project | null;
  open: boolean;
  onClose: () => void;
  onSaved: (project: Project) => void;
}) {
  const t = useTranslations("projects");
  const errorText = useErrorText();
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const { models, find } = useModels();
  const [saved, setSaved] = useState<Project | null>(project);
  const [name, setName] = useState(project?.name ?? "");
  const [instructions, setInstructions] = useState(project?.instructions ?? "");
  const [model, setModel] = useState(project?.model ?? "");
  const presets = usePresets();
  const [presetId, setPresetId] = useState(project?.presetId ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (open && !dialog.current?.open) dialog.current?.showModal();
  }, [open]);

  const save = async () => {
    setBusy(true);
    setError(null);
    const fields = { name, instructions, model: model || null, presetId: presetId || null };
    try {
      const { project: stored } = saved ? await api.updateProject(saved.id, fields) : await api.createProject(fields);
      onSaved(stored);
      if (saved) dialog.current?.close();
      setSaved(stored);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };

  // The project's model wins over its preset's (as on the server); without one the preset's applies.
  const presetModel = presets.find((preset) => preset.id === presetId)?.model;

  return (
    <dialog
      ref={dialog}
      onClose={onClose}
      aria-labelledby={titleId}
      data-testid="project-dialog"
      className="m-auto max-h-[calc(100dvh-2rem)] w-[min(36rem,calc(100vw-1.5rem))] overflow-y-auto rounded-2xl border border-border bg-background p-0 text-foreground shadow-2xl backdrop:bg-black/50 backdrop:backdrop-blur-[1px]"
    >
      {open ? (
        <div className="space-y-4 p-5">
          <div>
            <h2 id={titleId} className="text-base font-semibold">
              {saved ? t("editTitle") : t("createTitle")}
            </h2>
            <p className="mt-1 text-sm text-muted-foreground">{t("description")}</p>
          </div>
          <form
            noValidate
            className="space-y-3"
            onSubmit={(event) => {
              event.preventDefault();
              void save();
            }}
          >
            <label className="block space-y-1 text-sm font-medium">
              <span>{t("name")}</span>
              <input
                data-testid="project-name"
                className={INPUT}
                value={name}
                maxLength={100}
                onChange={(event) => setName(event.target.value)}
              />
            </label>
            <label className="block space-y-1 text-sm font-medium">
              <span>{t("instructions")}</span>
              <textarea
                data-testid="project-instructions"
                className={`${INPUT} min-h-24 resize-y`}
                value={instructions}
                placeholder={t("instructionsPlaceholder")}
                onChange={(event) => setInstructions(event.target.value)}
              />
            </label>
            <div className="grid gap-3 sm:grid-cols-2">
              <label className="block min-w-0 space-y-1 text-sm font-medium">
                <span>{t("model")}</span>
                <select
                  data-testid="project-model"
                  className={INPUT}
                  value={model}
                  onChange={(event) => setModel(event.target.value)}
                >
                  <option value="">
                    {presetModel
                      ? t("presetsModel", { model: modelDisplayName(presetModel, find(presetModel)) })
                      : t("usualModel")}
                  </option>
                  {/* A model the project names that is not installed (any more) stays choosable, as it is. */}
                  <ModelOptions models={models} kept={model} />
                </select>
              </label>
              <label className="block min-w-0 space-y-1 text-sm font-medium">
                <span>{t("preset")}</span>
                <select
                  data-testid="project-preset"
                  className={INPUT}
                  value={presetId}
                  onChange={(event) => setPresetId(event.target.value)}
                >
                  <option value="">{t("usualPreset")}</option>
                  {presets.map((preset) => (
                    <option key={preset.id} value={preset.id}>
                      {preset.name}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            <p className="text-xs text-muted-foreground">{presets.length > 0 ? t("presetHint") : t("noPresets")}</p>
            {error ? <InlineError data-testid="project-error">{error}</InlineError> : null}
            <div className="flex justify-end gap-2 pt-1">
              <button type="button" className={BUTTON_SECONDARY} onClick={() => dialog.current?.close()}>
                {saved && !project ? t("close") : t("cancel")}
              </button>
              <button type="submit" data-testid="project-save" disabled={busy} className={BUTTON_PRIMARY}>
                {busy ? <Loader2 aria-hidden className="size-4 animate-spin" /> : null}
                {saved ? t("save") : t("create")}
              </button>
            </div>
          </form>
          {saved ? <ProjectFiles projectId={saved.id} /> : null}
        </div>
      ) : null}
    </dialog>
  );
}

/** The project's files: each with its size or pages, a download link and Delete; an upload button. */
function ProjectFiles({ projectId }: { projectId: string }) {
  const t = useTranslations("projects");
  const errorText = useErrorText();
  // Read again every 2 s while a file is still being indexed, so its label follows.
  const { data, mutate } = useSWR(cacheKeys.projectFiles(projectId), () => api.projectFiles(projectId), {
    refreshInterval: (latest) => (latest?.files.some((file) => !file.indexed) ? 2000 : 0),
  });
  const [uploading, setUploading] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const add = async (chosen: File[]) => {
    setError(null);
    for (const file of chosen) {
      setUploading(file.name);
      try {
        await uploadFile({ projectId, file });
      } catch (caught) {
        setError(`${file.name}: ${errorText(caught)}`);
        break;
      } finally {
        setUploading(null);
      }
    }
    await mutate();
  };

  const remove = async (fileId: string) => {
    setError(null);
    try {
      await api.deleteProjectFile(projectId, fileId);
      await mutate();
    } catch (caught) {
      setError(errorText(caught));
    }
  };

  const files = data?.files ?? [];
  return (
    <section aria-labelledby={`${projectId}-files`} className="space-y-2 border-t border-border pt-4">
      <div className="flex items-center justify-between gap-2">
        <h3 id={`${projectId}-files`} className="text-sm font-semibold">
          {t("files")}
        </h3>
        <button
          type="button"
          className={BUTTON_SECONDARY}
          disabled={uploading !== null}
          onClick={() => input.current?.click()}
        >
          {uploading ? (
            <Loader2 aria-hidden className="size-4 animate-spin" />
          ) : (
            <Upload aria-hidden className="size-4" />
          )}
          {t("addFiles")}
        </button>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          data-testid="project-file-input"
          onChange={(event) => {
            const chosen = [...(event.target.files ?? [])];
            event.target.value = "";
            void add(chosen);
          }}
        />
      </div>
      <p className="text-xs text-muted-foreground">{t("filesHint")}</p>
      {uploading ? (
        <p role="status" className="text-sm text-muted-foreground">
          {t("uploading", { name: uploading })}
        </p>
      ) : null}
      {error ? <InlineError>{error}</InlineError> : null}
      {data && files.length === 0 ? <p className="text-sm text-muted-foreground">{t("noFiles")}</p> : null}
      <ul className="divide-y divide-border rounded-lg border border-border empty:hidden" data-testid="project-files">
        {files.map((file) => (
          <li key={file.id} data-testid="project-file" className="flex items-center gap-2 px-3 py-2 text-sm">
            <FileText aria-hidden className="size-4 shrink-0 text-muted-foreground" />
            <a
              href={projectFileUrl(projectId, file.id)}
              download={file.filename}
              className="min-w-0 flex-1 truncate hover:underline"
            >
              {file.filename}
            </a>
            <span className="shrink-0 text-xs text-muted-foreground">
              {file.pageCount !== null ? t("pages", { count: file.pageCount }) : formatBytes(file.size)}
              {file.indexed ? null : ` · ${t("notIndexed")}`}
            </span>
            <IconButton
              size="sm"
              label={t("deleteFile", { name: file.filename })}
              onClick={() => void remove(file.id)}
              className="hover:text-red-600 dark:hover:text-red-400"
            >
              <Trash2 aria-hidden className="size-3.5" />
            </IconButton>
          </li>
        ))}
      </ul>
    </section>
  );
}
