"use client";

import { TriangleAlert } from "lucide-react";
import { useTranslations } from "use-intl";
import { useModels } from "./use-models";

/** Warns under the composer when the chosen model cannot call tools, or is not installed. */
export function ModelNotice({ model }: { model: string | null }) {
  const t = useTranslations("models");
  const { find, status, models } = useModels();
  if (status !== "ready" || !model) return null;
  const info = find(model);
  let text: string | null = null;
  if (!info && models.length > 0) text = t("noticeMissing", { model });
  else if (info && !info.abilities.tool_call) text = t("noticeNoTools", { model });
  if (!text) return null;
  return (
    <p
      data-testid="model-tools-warning"
      className="flex items-center justify-center gap-1.5 text-xs text-amber-700 dark:text-amber-400"
    >
      <TriangleAlert aria-hidden className="size-3.5 shrink-0" />
      {text}
    </p>
  );
}
