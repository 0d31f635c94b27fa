import "server-only";
import { roleModel } from "@/lib/admin-settings";
import type { ChatSettings } from "@/lib/chat-settings";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { replacementModel, sameModel } from "@/lib/llm/model-replacement";
import { getLLM, installedModelNames, isServerModel, resolveModelName } from "@/lib/llm/registry";
import type { LLM } from "@/lib/llm/types";

/** The conversation's model, and the model that answers this turn (the vision model for images it cannot see). */
export interface TurnModel {
  conversationModel: string;
  llm: LLM;
}

/**
 * Picks the turn's model before anything is stored. A model Ollama no longer lists is refused with
 * the installed replacement to offer (409), never recorded as a failed turn; images for a model
 * without vision go to the vision role's model, or are refused when there is none (409). Either
 * model runs with the conversation's own settings.
 */
export async function chooseTurnModel(
  db: Db,
  {
    requested,
    conversationModel,
    withImages,
    settings,
  }: { requested?: string; conversationModel: string | null; withImages: boolean; settings: ChatSettings },
): Promise<TurnModel> {
  const general = await roleModel(db, "general");
  const model = await resolveModelName(requested, conversationModel, general);
  const installed = await installedModelNames(model);
  if (!installed.some((name) => sameModel(name, model))) {
    const replacement = replacementModel(model, installed, general);
    const [gone, fix] = isServerModel(model)
      ? ["on its server", ""]
      : ["installed in Ollama", ` Pull it with \`ollama pull ${model}\`.`];
    throw new AppError(
      "conflict:model_missing",
      replacement
        ? `Model '${model}' is no longer ${gone}. Switch to '${replacement}'.${fix}`
        : `Model '${model}' is no longer ${gone}, and no other model is.${fix}`,
      { details: { model, replacement } },
    );
  }
  const llm = await getLLM(model, settings);
  if (!withImages || llm.abilities.vision) return { conversationModel: model, llm };

  const vision = await roleModel(db, "vision");
  const cannotSee = `Model '${model}' can't see images.`;
  if (!vision) {
    throw new AppError(
      "conflict:no_vision_model",
      `${cannotSee} Set a vision model in Settings, or pick a model with vision.`,
      { details: { model, vision: null, problem: "no_vision_role" } },
    );
  }
  if (!(await installedModelNames(vision)).some((name) => sameModel(name, vision))) {
    throw new AppError(
      "conflict:no_vision_model",
      `${cannotSee} The vision model '${vision}' is not installed: pull it, or set another in Settings.`,
      { details: { model, vision, problem: "vision_missing" } },
    );
  }
  const visionLlm = await getLLM(vision, settings, "vision");
  if (!visionLlm.abilities.vision) {
    throw new AppError(
      "conflict:no_vision_model",
      `${cannotSee} The vision model '${vision}' can't either: set one with vision in Settings.`,
      { details: { model, vision, problem: "vision_blind" } },
    );
  }
  return { conversationModel: model, llm: visionLlm };
}
