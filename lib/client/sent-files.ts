/**
 * Which files were sent with which question. The server knows a conversation's files but not the
 * message they came with (the model sees all of them), so this browser remembers it, in
 * localStorage, to show the chips on the right question after a reload too.
 */

/** A file sent with a question, as its chip shows it. */
export interface SentAttachment {
  id: string;
  filename: string;
  mime: string;
  size: number;
  pageCount: number | null;
}

const STORAGE_KEY = "ollama-web:sent-files";
/** Oldest entries are forgotten past this many questions. */
const MAX_ENTRIES = 500;

let cache: Map<string, SentAttachment[]> | null = null;

function load(): Map<string, SentAttachment[]> {
  if (cache) return cache;
  cache = new Map();
  try {
    const raw = typeof localStorage === "undefined" ? null : localStorage.getItem(STORAGE_KEY);
    const entries = raw ? (JSON.parse(raw) as [string, SentAttachment[]][]) : [];
    if (Array.isArray(entries)) cache = new Map(entries.filter((entry) => Array.isArray(entry?.[1])));
  } catch {
    // unreadable or blocked storage: start empty
  }
  return cache;
}

export function rememberSentFiles(messageId: string, files: SentAttachment[]): void {
  if (files.length === 0) return;
  const map = load();
  map.set(
    messageId,
    files.map(({ id, filename, mime, size, pageCount }) => ({ id, filename, mime, size, pageCount })),
  );
  while (map.size > MAX_ENTRIES) {
    const oldest = map.keys().next().value;
    if (oldest === undefined) break;
    map.delete(oldest);
  }
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify([...map]));
  } catch {
    // full or blocked storage: the chips show for this page's life only
  }
}

export function sentFilesOf(messageId: string): SentAttachment[] | undefined {
  return load().get(messageId);
}
