/**
 * Whether a tool's string result reports a failure. Tools return errors as readable strings (SPEC
 * §11); the UI and the fallback summary still need to know which ones failed.
 */
const ERROR_PREFIXES = [
  "Invalid URL.",
  "Blocked URL:",
  "Failed to fetch ",
  "Invalid continuation token:",
  "PDF exceeds the configured size limit.",
  "Attachment not found:",
  "Only http(s) URLs",
  "PDF is encrypted",
  "PDF is corrupt",
  "Not a PDF",
];

export function isErrorOutput(output: string): boolean {
  if (output.startsWith('{"error"')) return true;
  return ERROR_PREFIXES.some((prefix) => output.startsWith(prefix));
}
