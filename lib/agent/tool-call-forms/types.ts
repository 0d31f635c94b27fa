/**
 * The contract of a tool-call form (docs/engine.md, "Tool calls written as text"): one
 * recogniser per family of markup that local models write instead of a real tool call.
 */

export interface TextToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface FormContext {
  /** The tools offered to the model in this turn. */
  toolNames: readonly string[];
  /** The offered tool this name means (exact, or unambiguous by case, `-`/`_` or a missing `server__`), or null. */
  resolve(name: string): string | null;
}

/**
 * What a recogniser found: the calls, in order. An empty list means the text is this family's
 * call markup but holds nothing that can run (an unrunnable call); null means "not this form".
 */
export type Recognised = TextToolCall[] | null;

export interface ToolCallForm {
  /** The family's name, as fixtures and the bench report it. */
  readonly family: string;
  recognise(text: string, context: FormContext): Recognised;
}
