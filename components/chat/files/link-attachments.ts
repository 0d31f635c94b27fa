import { fileUrl } from "@/lib/client/api";

// `attachment:<uuid>` not already inside a link target or inline code.
const REFERENCE =
  /(?<![`/\w])(?<!\]\()attachment:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![\w`])/gi;

/**
 * Answers name the conversation's files the way the model knows them, `attachment:<id>`; those
 * become download links with the file's name. Unknown ids stay as written.
 */
export function linkAttachments(
  text: string,
  conversationId: string | null,
  names: ReadonlyMap<string, string>,
): string {
  if (!conversationId || names.size === 0 || !text.includes("attachment:")) return text;
  return text.replace(REFERENCE, (match, id: string) => {
    const name = names.get(id.toLowerCase()) ?? names.get(id);
    if (!name) return match;
    return `[${name.replace(/[[\]\\]/g, "\\$&")}](${fileUrl(conversationId, id)})`;
  });
}
