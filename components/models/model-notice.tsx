"use client";

import { TriangleAlert } from "lucide-react";
import { useModels } from "./models-context";

/** Warns under the composer when the chosen model cannot call tools, or is not installed. */
export function ModelNotice({ model }: { model: string | null }) {
  const { find, status, models } = useModels();
  if (status !== "ready" || !model) return null;
  const info = find(model);
  let text: string | null = null;
  if (!info && models.length > 0)
    text = `${model} is not installed. Pick another model, or pull it with “ollama pull ${model}”.`;
  else if (info && !info.abilities.tool_call) text = `${model} cannot call tools, so answers will use JSON mode.`;
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
