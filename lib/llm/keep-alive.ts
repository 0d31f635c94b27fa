/**
 * `keep_alive` as Ollama reads it on `/api/chat`: how long the model stays in memory after a request.
 * Framework-free: the configuration, the settings page's checks and the request share it.
 */

/** A Go duration as `time.ParseDuration` takes it ("5m", "1h30m", "-1s", "0"). */
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$/;
const SECONDS = /^[-+]?\d+(\.\d+)?$/;

/**
 * The value to send for what a person wrote: seconds become a number (Ollama reads a bare number
 * as seconds but rejects "300" as a duration without unit), a duration stays a string. Undefined
 * when it is neither. Negative keeps the model loaded forever, 0 unloads it after each reply.
 */
export function keepAliveValue(text: string): string | number | undefined {
  const trimmed = text.trim();
  if (SECONDS.test(trimmed)) return Number(trimmed);
  return GO_DURATION.test(trimmed) && trimmed.length <= 32 ? trimmed : undefined;
}

export const KEEP_ALIVE_HINT = 'a duration such as "5m" or "1h", seconds, -1 (forever) or 0 (unload at once)';
