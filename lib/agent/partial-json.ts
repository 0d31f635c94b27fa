/**
 * Reads a JSON object while it streams in, chunk by chunk, and decodes its top-level string values
 * as far as they have arrived: JSON mode's `final_answer` can be shown while the model writes it.
 * Text before the object (a fence, a stray word) and after it is ignored; nested values are skipped.
 * It never fails: the reply is parsed properly (`extractJson`) once it is whole.
 */
export class PartialJsonObject {
  private depth = 0;
  private done = false;
  private inString = false;
  /** The string being read is a key of the top-level object (else a value, or something nested). */
  private stringIsKey = false;
  private expectKey = false;
  private escape: "" | "\\" | "u" = "";
  private unicode = "";
  /** A high surrogate waiting for its pair, so a delta never ends in half a character. */
  private highSurrogate = "";
  private buffer = "";
  private currentKey: string | null = null;
  private readonly keySet = new Set<string>();
  private readonly values = new Map<string, string>();
  private readonly complete = new Set<string>();

  /** Top-level keys seen so far, in any state. */
  get keys(): ReadonlySet<string> {
    return this.keySet;
  }

  /** A top-level string value as far as it has been decoded. */
  value(key: string): string | undefined {
    return this.values.get(key);
  }

  /** The top-level string value has been read to its closing quote. */
  isComplete(key: string): boolean {
    return this.complete.has(key);
  }

  /** Reads a chunk; returns what it added to each top-level string value. */
  push(chunk: string): Map<string, string> {
    const added = new Map<string, string>();
    for (const char of chunk) {
      if (this.done) break;
      if (this.inString) this.readStringChar(char, added);
      else this.readStructureChar(char);
    }
    return added;
  }

  private readStructureChar(char: string): void {
    if (char === '"') {
      if (this.depth === 0) return;
      this.inString = true;
      this.stringIsKey = this.depth === 1 && this.expectKey;
      this.buffer = "";
      if (this.depth === 1 && !this.stringIsKey && this.currentKey !== null) this.values.set(this.currentKey, "");
      return;
    }
    if (char === "{" || char === "[") {
      if (this.depth === 0 && char === "[") return;
      this.depth++;
      if (this.depth === 1) this.expectKey = true;
      return;
    }
    if (char === "}" || char === "]") {
      if (this.depth === 0) return;
      this.depth--;
      if (this.depth === 0) this.done = true;
      return;
    }
    if (this.depth !== 1) return;
    if (char === ":") this.expectKey = false;
    else if (char === ",") {
      this.expectKey = true;
      this.currentKey = null;
    }
  }

  private readStringChar(char: string, added: Map<string, string>): void {
    let text = "";
    if (this.escape === "\\") {
      this.escape = "";
      if (char === "u") {
        this.escape = "u";
        this.unicode = "";
        return;
      }
      text = ESCAPES[char] ?? char;
    } else if (this.escape === "u") {
      this.unicode += char;
      if (this.unicode.length < 4) return;
      this.escape = "";
      const code = Number.parseInt(this.unicode, 16);
      text = Number.isNaN(code) ? "" : String.fromCharCode(code);
    } else if (char === "\\") {
      this.escape = "\\";
      return;
    } else if (char === '"') {
      this.endString(added);
      return;
    } else {
      text = char;
    }
    this.append(text, added);
  }

  private append(text: string, added: Map<string, string>): void {
    if (!text) return;
    let out = this.highSurrogate + text;
    this.highSurrogate = "";
    const last = out.charCodeAt(out.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.highSurrogate = out.slice(-1);
      out = out.slice(0, -1);
    }
    this.store(out, added);
  }

  private store(text: string, added: Map<string, string>): void {
    if (!text) return;
    if (this.stringIsKey) {
      this.buffer += text;
      return;
    }
    if (this.depth !== 1 || this.currentKey === null) return;
    const key = this.currentKey;
    this.values.set(key, (this.values.get(key) ?? "") + text);
    added.set(key, (added.get(key) ?? "") + text);
  }

  private endString(added: Map<string, string>): void {
    // A lone high surrogate is still what the JSON said: keep it rather than lose it.
    this.store(this.highSurrogate, added);
    this.highSurrogate = "";
    this.inString = false;
    if (this.stringIsKey) {
      this.currentKey = this.buffer;
      this.keySet.add(this.buffer);
    } else if (this.depth === 1 && this.currentKey !== null) {
      this.complete.add(this.currentKey);
    }
  }
}

const ESCAPES: Record<string, string> = { n: "\n", r: "\r", t: "\t", b: "\b", f: "\f", '"': '"', "\\": "\\", "/": "/" };
