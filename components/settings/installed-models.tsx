"use client";

import { ChevronDown, Loader2, Trash2 } from "lucide-react";
import { useState } from "react";
import useSWR from "swr";
import { useTranslations } from "use-intl";
import { CapabilityBadges } from "@/components/models/capability-badges";
import { useModels } from "@/components/models/use-models";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { BUTTON_SECONDARY, InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import { formatBytes } from "@/lib/client/format";
import type { ModelInfo } from "@/lib/client/types";
import { ServerChoice } from "./ollama-servers";

/**
 * The installed models with their facts (with several Ollama servers, which have each), the licence
 * on demand, and Delete behind a confirmation (from one server that has it, or all of them).
 */
export function InstalledModels({ onDeleted, manyServers }: { onDeleted: () => void; manyServers: boolean }) {
  const t = useTranslations("modelAdmin");
  const message = useErrorText();
  const { models: listed, status, error } = useModels();
  // An OpenAI-compatible server's models are its own to manage; they are listed with their server.
  const models = listed.filter((model) => !model.openaiCompatible);
  const [deleting, setDeleting] = useState<ModelInfo | null>(null);
  const [deleteFrom, setDeleteFrom] = useState("");
  return (
    <div className="rounded-xl border border-border" data-testid="installed-models">
      {status === "error" && error ? <InlineError className="m-3">{error}</InlineError> : null}
      {status === "ready" && models.length === 0 ? (
        <p className="p-4 text-sm text-muted-foreground">{t("noneInstalled")}</p>
      ) : null}
      <ul className="divide-y divide-border">
        {models.map((model) => (
          <InstalledRow
            key={model.name}
            model={model}
            manyServers={manyServers}
            onDelete={() => {
              setDeleteFrom("");
              setDeleting(model);
            }}
          />
        ))}
      </ul>
      <ConfirmDialog
        open={deleting !== null}
        title={t("deleteTitle")}
        text={deleting ? t("deleteText", { model: deleting.name }) : null}
        cancelLabel={t("cancel")}
        confirmLabel={t("delete")}
        testId="delete-model-dialog"
        confirmTestId="confirm-model-delete"
        onClose={() => setDeleting(null)}
        extra={
          (deleting?.servers?.length ?? 0) > 1 ? (
            <ServerChoice
              label={t("deleteFrom")}
              allLabel={t("allServersWithModel")}
              servers={deleting?.servers ?? []}
              value={deleteFrom}
              onChange={setDeleteFrom}
              testId="delete-server"
            />
          ) : undefined
        }
        onConfirm={async () => {
          if (!deleting) return null;
          try {
            await api.deleteModel(deleting.name, deleteFrom || undefined);
            onDeleted();
            return null;
          } catch (caught) {
            return message(caught);
          }
        }}
      />
    </div>
  );
}

function InstalledRow({
  model,
  manyServers,
  onDelete,
}: {
  model: ModelInfo;
  manyServers: boolean;
  onDelete: () => void;
}) {
  const t = useTranslations("modelAdmin");
  const [open, setOpen] = useState(false);
  const facts = [
    model.family,
    model.parameterSize,
    model.quantization,
    model.contextLength ? t("context", { tokens: model.contextLength.toLocaleString() }) : null,
    model.sizeBytes ? formatBytes(model.sizeBytes) : null,
  ].filter(Boolean);
  const detailsId = `model-details-${model.name.replace(/[^\w-]/g, "_")}`;
  return (
    <li data-testid="installed-model" data-model={model.name} className="px-4 py-3">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <div className="min-w-0 flex-1">
          <p className="truncate font-mono text-sm font-medium">{model.name}</p>
          <p className="text-xs text-muted-foreground">{facts.join(" · ")}</p>
          {manyServers && model.servers ? (
            <p className="break-all text-xs text-muted-foreground" data-testid="model-servers">
              {t("onServers", { list: model.servers.join(", ") })}
            </p>
          ) : null}
        </div>
        <CapabilityBadges model={model} />
        <button
          type="button"
          className={BUTTON_SECONDARY}
          aria-expanded={open}
          aria-controls={detailsId}
          onClick={() => setOpen((now) => !now)}
        >
          <ChevronDown aria-hidden className={open ? "size-4 rotate-180" : "size-4"} />
          {t("details")}
        </button>
        <button
          type="button"
          className={`${BUTTON_SECONDARY} text-red-700 dark:text-red-300`}
          data-testid="model-delete"
          aria-label={t("deleteNamed", { model: model.name })}
          onClick={onDelete}
        >
          <Trash2 aria-hidden className="size-4" />
          {t("delete")}
        </button>
      </div>
      {open ? <ModelLicence id={detailsId} model={model} /> : null}
    </li>
  );
}

function ModelLicence({ id, model }: { id: string; model: ModelInfo }) {
  const t = useTranslations("modelAdmin");
  const message = useErrorText();
  const { data, error } = useSWR(["/api/admin/models/details", model.name], () => api.modelDetails(model.name));
  return (
    <div id={id} className="mt-3 space-y-2 text-sm" data-testid="model-details">
      <p className="text-muted-foreground">{t("capabilities", { list: model.capabilities.join(", ") || "—" })}</p>
      {error ? <InlineError>{message(error)}</InlineError> : null}
      {data === undefined && !error ? (
        <Loader2 aria-label={t("loadingDetails")} className="size-4 animate-spin" />
      ) : null}
      {data ? (
        <div>
          <p className="font-medium">{t("licence")}</p>
          <pre className="mt-1 max-h-48 overflow-auto whitespace-pre-wrap rounded-lg bg-muted p-3 text-xs">
            {data.model.license ?? t("noLicence")}
          </pre>
        </div>
      ) : null}
    </div>
  );
}
