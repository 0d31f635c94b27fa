/** Builds the app with `next build` unless .next holds a build of exactly these sources. */
export function ensureBuild(): void;
export function sourceFingerprint(): string;
