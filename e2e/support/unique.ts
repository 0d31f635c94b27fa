/** A short random tag, so each test's conversations are told apart in the shared sidebar. */
export function unique(prefix: string): string {
  return `${prefix} ${Math.random().toString(36).slice(2, 8)}`;
}
