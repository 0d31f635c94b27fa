import type { ReadSource, Source } from "@/lib/protocol/run-events";

/**
 * The pages and files a run read, numbered from 1 in the order their results arrived, one number
 * per URL. One list per run: a DAG run shares it across its steps, so every `[n]` of the answer
 * means one source.
 */
export class SourceList {
  readonly all: Source[] = [];

  cite(read: ReadSource): Source {
    const known = this.all.find((source) => source.url === read.url);
    if (known) return known;
    const source = { n: this.all.length + 1, ...read };
    this.all.push(source);
    return source;
  }
}
