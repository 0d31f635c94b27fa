/**
 * A conversation's title before the model suggests one (lib/chat/title.ts): the placeholder of a new
 * chat and the title taken from its first message. Framework-free: the store fills in the
 * placeholder, the turn's start replaces it.
 */

export const DEFAULT_TITLE = "New chat";
/** The longest title the sidebar shows, taken from a message or suggested by the model. */
export const TITLE_MAX = 80;

/** A title from the first message: one line, cut at a word boundary. */
export function titleFromMessage(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (line.length <= TITLE_MAX) return line || DEFAULT_TITLE;
  const cut = line.slice(0, TITLE_MAX);
  const space = cut.lastIndexOf(" ");
  return `${(space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
