/**
 * The offered tool a model meant by a name the registry does not have, resolved only when
 * unambiguous: harmony tokens and a `functions.` prefix removed, then case and `-`/`_`
 * differences, then an MCP tool named without its `server__` prefix. Nothing is guessed from
 * argument shapes; an ambiguous or unknown name stays unknown (the model gets the list of tools).
 */

const HARMONY_TOKEN = /<\|[a-z_]+\|>/g;
const MCP_SEPARATOR = "__";

const loose = (name: string) => name.toLowerCase().replace(/-/g, "_");

function unique(names: readonly string[], matches: (name: string) => boolean): string | null {
  const found = names.filter(matches);
  return found.length === 1 ? (found[0] as string) : null;
}

function resolveOne(name: string, names: readonly string[]): string | null {
  if (names.includes(name)) return name;
  const wanted = loose(name);
  return (
    unique(names, (candidate) => loose(candidate) === wanted) ??
    unique(names, (candidate) => {
      const at = candidate.indexOf(MCP_SEPARATOR);
      return at !== -1 && loose(candidate.slice(at + MCP_SEPARATOR.length)) === wanted;
    })
  );
}

/** The pieces of a name once harmony tokens are cut out (`get_weather<|channel|>commentary`). */
function candidatesOf(name: string): string[] {
  return name
    .split(HARMONY_TOKEN)
    .flatMap((piece) => piece.trim().split(/\s+/))
    .map((piece) => piece.replace(/^functions\./, ""))
    .filter(Boolean);
}

export function resolveToolName(name: string, names: readonly string[]): string | null {
  const direct = resolveOne(name.trim(), names);
  if (direct) return direct;
  for (const candidate of candidatesOf(name)) {
    const resolved = resolveOne(candidate, names);
    if (resolved) return resolved;
  }
  return null;
}

/** What to call a name that resolves to nothing: itself, without harmony tokens, for the error the model reads. */
export function cleanToolName(name: string): string {
  const pieces = name
    .split(HARMONY_TOKEN)
    .map((piece) => piece.trim())
    .filter(Boolean);
  return pieces[0] ?? name.trim();
}
