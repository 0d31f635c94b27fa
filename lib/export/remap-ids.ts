/**
 * New ids for an imported conversation's old ones, applied consistently: columns that name an id,
 * and ids inside stored run events and texts (a run's `conversationId`, `done.messageId`, a source's
 * `attachment:<file id>`). Ids are random UUIDs, so an old id met elsewhere can only mean that thing.
 * `known`: ids this import already gave new ones (its projects' files), kept as they were given.
 */
export function remapIds(oldIds: string[], known: ReadonlyMap<string, string> = new Map()) {
  const ids = new Map([...known, ...oldIds.map((old): [string, string] => [old, crypto.randomUUID()])]);
  const id = (old: string): string => ids.get(old) ?? old;
  const inText = (text: string): string =>
    text.replace(/attachment:([A-Za-z0-9_-]{1,64})/g, (whole, old: string) =>
      ids.has(old) ? `attachment:${id(old)}` : whole,
    );
  const inValue = (value: unknown): unknown => {
    if (typeof value === "string") return ids.has(value) ? id(value) : inText(value);
    if (Array.isArray(value)) return value.map(inValue);
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, inValue(inner)]));
    }
    return value;
  };
  return { id, nullable: (old: string | null) => (old === null ? null : id(old)), inText, inValue };
}

export type Remap = ReturnType<typeof remapIds>;
