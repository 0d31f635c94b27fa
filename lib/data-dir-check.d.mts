/** What makes `dir` unusable as the data directory, or null (data-dir-check.mjs). */
export declare function dataDirProblem(dir: string): string | null;
/** The one line that stops the server when DATA_DIR is unusable, or null when it is fine. */
export declare function dataDirError(value: string | undefined, dir: string): string | null;
