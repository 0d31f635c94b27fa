import { withoutBidiControls } from "@/lib/text/bidi-controls";

/**
 * `text` with `[start, start + length)` marked: all of it rendered as text (React escapes it), each
 * part without bidi controls (the offsets are those of the text as stored).
 */
export function Highlighted({ text, start, length }: { text: string; start: number; length: number }) {
  return (
    <>
      {withoutBidiControls(text.slice(0, start))}
      <mark data-testid="search-highlight" className="rounded-sm bg-amber-200 text-inherit dark:bg-amber-500/40">
        {withoutBidiControls(text.slice(start, start + length))}
      </mark>
      {withoutBidiControls(text.slice(start + length))}
    </>
  );
}
