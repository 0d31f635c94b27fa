"use client";

import { TriangleAlert } from "lucide-react";
import { useTranslations } from "use-intl";
import { replacementModel } from "@/lib/llm/model-replacement";
import { modelDisplayName } from "./model-name";
import { useModels } from "./use-models";

/**
 * Warns under the composer when the chosen model cannot call tools, or is not installed (any more):
 * then it offers the installed replacement in one click. A model of an OpenAI-compatible server that
 * is down or refused its API key is named with its server and why.
 */
export function ModelNotice({ model, onReplace }: { model: string | null; onReplace?: (model: string) => void }) {
  const t = useTranslations("models");
  const { find, status, models, defaultModel, servers } = useModels();
  if (status !== "ready" || !model) return null;
  const info = find(model);
  const replacement =
    info || !onReplace
      ? null
      : replacementModel(
          model,
          models.map((m) => m.name),
          defaultModel,
        );
  // A model of an OpenAI-compatible server that is down or refused its key: the server says why.
  const server = info ? undefined : servers.find((entry) => model.endsWith(`@${entry.label}`));
  let text: string | null = null;
  if (server?.state === "key_refused") text = t("noticeServerKeyRefused", { model, server: server.label });
  else if (server?.state === "down") text = t("noticeServerDown", { model, server: server.label });
  else if (replacement) text = t("noticeMissingReplace", { model: modelDisplayName(model) });
  else if (!info && models.length > 0) text = t("noticeMissing", { model });
  else if (info && !info.abilities.tool_call) text = t("noticeNoTools", { model: modelDisplayName(model, info) });
  if (!text) return null;
  return (
    <p
      data-testid="model-tools-warning"
      className="flex flex-wrap items-center justify-center gap-1.5 text-xs text-amber-700 dark:text-amber-400"
    >
      <TriangleAlert aria-hidden className="size-3.5 shrink-0" />
      {text}
      {replacement && onReplace ? (
        <button
          type="button"
          data-testid="model-replacement"
          onClick={() => onReplace(replacement)}
          className="rounded-full border border-amber-600/40 px-2 py-0.5 font-medium hover:bg-amber-500/10 focus-visible:outline-2 focus-visible:outline-ring"
        >
          {t("useReplacement", { model: modelDisplayName(replacement, find(replacement)) })}
        </button>
      ) : null}
    </p>
  );
}
