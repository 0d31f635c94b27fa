/** Builds the app with `next build` unless .next holds a build of exactly these sources. */
export function ensureBuild(options?: { force?: boolean }): void;
export function sourceFingerprint(): string;
