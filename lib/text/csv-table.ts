/**
 * CSV → a Markdown table, which small models read more reliably than raw CSV: one row per line, the
 * header row named once and repeatable atop each page. RFC 4180 quoting (delimiters, "" and line
 * breaks inside quotes); the delimiter is the most frequent of `,` `;` and tab in the first line.
 * Linear in the text; rows are never padded, so one very wide row costs only its own length.
 */

export interface MarkdownTable {
  /** The header row and the rule under it, each ending in a line break. */
  head: string;
  /** The other rows, one per line. */
  body: string;
}

const DELIMITERS = [",", ";", "\t"] as const;

export function guessDelimiter(text: string): string {
  const end = text.indexOf("\n");
  const firstLine = (end < 0 ? text : text.slice(0, end)).replace(/"[^"]*"/g, "");
  let best: string = ",";
  let bestCount = 0;
  for (const delimiter of DELIMITERS) {
    const count = firstLine.split(delimiter).length - 1;
    if (count > bestCount) {
      best = delimiter;
      bestCount = count;
    }
  }
  return best;
}

/** The rows of `text`; blank lines are dropped. */
export function parseCsv(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let at = 0;
  const endRow = () => {
    row.push(field);
    field = "";
    if (row.length > 1 || row[0] !== "") rows.push(row);
    row = [];
  };
  while (at < text.length) {
    const char = text[at];
    if (char === '"' && field === "") {
      // A quoted field runs to the next quote not doubled.
      let end = at + 1;
      const parts: string[] = [];
      for (;;) {
        const quote = text.indexOf('"', end);
        if (quote < 0) {
          parts.push(text.slice(end));
          end = text.length;
          break;
        }
        parts.push(text.slice(end, quote));
        if (text[quote + 1] === '"') {
          parts.push('"');
          end = quote + 2;
        } else {
          end = quote + 1;
          break;
        }
      }
      field = parts.join("");
      at = end;
      continue;
    }
    if (char === delimiter) {
      row.push(field);
      field = "";
      at++;
    } else if (char === "\n" || char === "\r") {
      endRow();
      at += char === "\r" && text[at + 1] === "\n" ? 2 : 1;
    } else {
      // Plain text up to the next delimiter or line break, in one slice.
      let end = at + 1;
      while (end < text.length && text[end] !== delimiter && text[end] !== "\n" && text[end] !== "\r") end++;
      field += text.slice(at, end);
      at = end;
    }
  }
  if (field !== "" || row.length > 0) endRow();
  return rows;
}

const cell = (value: string) =>
  value
    .replace(/\r\n?|\n/g, " ")
    .replace(/\|/g, "\\|")
    .trim();
const line = (cells: string[]) => `| ${cells.map(cell).join(" | ")} |\n`;

export function csvToMarkdown(text: string): MarkdownTable {
  const rows = parseCsv(text.replace(/^\ufeff/, ""), guessDelimiter(text));
  const [header, ...rest] = rows;
  if (!header) return { head: "", body: "" };
  return {
    head: line(header) + line(header.map(() => "---")),
    body: rest.map(line).join(""),
  };
}
