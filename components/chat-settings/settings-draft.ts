import type { ChatSettings } from "@/lib/chat-settings";

/**
 * A chat's settings as a form edits them: text fields as typed ("" = the default) and thinking as
 * default / on / off. The server validates the ranges; the form only turns text into numbers.
 */
export interface SettingsDraft {
  instructions: string;
  temperature: string;
  topP: string;
  seed: string;
  numCtx: string;
  think: "default" | "on" | "off";
}

export const NUMBER_FIELDS = ["temperature", "topP", "seed", "numCtx"] as const;

export function toDraft(settings: ChatSettings = {}): SettingsDraft {
  const text = (value: number | undefined) => (value === undefined ? "" : String(value));
  return {
    instructions: settings.instructions ?? "",
    temperature: text(settings.temperature),
    topP: text(settings.topP),
    seed: text(settings.seed),
    numCtx: text(settings.numCtx),
    think: settings.think === undefined ? "default" : settings.think ? "on" : "off",
  };
}

/** The settings to send; a field that is not a number is sent as typed, for the server to refuse by name. */
export function fromDraft(draft: SettingsDraft): ChatSettings {
  const settings: Record<string, unknown> = {};
  if (draft.instructions.trim()) settings.instructions = draft.instructions;
  for (const field of NUMBER_FIELDS) {
    const typed = draft[field].trim();
    if (typed) settings[field] = Number.isFinite(Number(typed)) ? Number(typed) : typed;
  }
  if (draft.think !== "default") settings.think = draft.think === "on";
  return settings as ChatSettings;
}

/**
 * The settings a chat keeps that the settings dialog does not edit (research mode's auto-start, the
 * widened file search of the Tools menu): saving the dialog keeps them as they are.
 */
export function settingsOutsideDialog(settings: ChatSettings = {}): ChatSettings {
  const kept: ChatSettings = {};
  if (settings.researchAutoStart !== undefined) kept.researchAutoStart = settings.researchAutoStart;
  if (settings.searchAllFiles !== undefined) kept.searchAllFiles = settings.searchAllFiles;
  return kept;
}
