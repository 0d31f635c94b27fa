/**
 * Every error code there is, a closed catalogue grouped by kind: the server's kinds (the first part
 * of a code picks the HTTP status, `lib/errors.ts`) and the browser's own (`client`, `aborted`).
 * A name is the code's second part (`not_found:conversation`); `default` is the bare kind
 * (`conflict`). The catalogue is the list of message keys under `errors` in messages/*.json as
 * well: `lib/client/error-messages.ts` makes a code without an English and a Japanese message a
 * compile error. Framework-free, so the browser imports it.
 */

export const errorCatalogue = {
  bad_request: [
    "default",
    "validation",
    "empty_body",
    "malformed_json",
    "multipart",
    "cursor",
    "after",
    "keep_alive",
    "env_setting",
    "searxng_url",
    "model_name",
    "unknown_model",
    "no_models",
    "mode",
    "regenerate",
    "edit_of",
    "parent",
    "attachment",
    "interrupt",
    "empty_file",
    "mcp_secret",
    "mcp_import",
    "accounts_off",
    "export_format",
    "import_archive",
    "import_file",
    "import_entry_type",
    "import_entry_json",
    "import_not_export",
    "import_version",
    "import_invalid",
    "import_file_damaged",
    "import_file_refused",
    "import_files_missing",
    "not_an_answer",
    "not_research",
  ],
  unauthorized: ["default", "session", "credentials"],
  forbidden: [
    "default",
    "admin",
    "origin",
    "host",
    "signup_closed",
    "setup_token",
    "mcp_stdio",
    "follower",
    "current_password",
  ],
  not_found: [
    "default",
    "conversation",
    "message",
    "preset",
    "project",
    "memory",
    "run",
    "source",
    "interrupt",
    "user",
    "file",
    "model",
    "registry_model",
    "mcp_server",
    "account",
    "ollama_server",
  ],
  conflict: [
    "default",
    "run_active",
    "no_active_run",
    "interrupt_queued",
    "username",
    "self",
    "last_admin",
    "model_missing",
    "no_vision_model",
    "mcp_server_exists",
    "mcp_server_disabled",
    "mcp_file_server",
    "import_running",
    "no_pending_approval",
    "conversation_files",
    "project_files",
    "citations_checking",
    "not_interrupted",
  ],
  payload_too_large: [
    "default",
    "body",
    "text_file",
    "docx",
    "pdf",
    "image_pixels",
    "image_frames",
    "import_archive",
    "import_entry",
    "storage_quota",
  ],
  unsupported_media_type: [
    "default",
    "file",
    "zip",
    "binary_text",
    "docx",
    "pdf",
    "image",
    "image_decode",
    "upload",
    "preview",
  ],
  rate_limited: [
    "default",
    "login",
    "runs_per_user",
    "runs_total",
    "interrupts",
    "interrupt_bytes",
    "imports_per_user",
    "imports_total",
    "follows_per_user",
    "follows_per_run",
  ],
  upstream: [
    "default",
    "ollama",
    "ollama_unreachable",
    "ollama_timeout",
    "ollama_connection",
    "ollama_line_too_long",
    "disk_full",
    "registry_unreachable",
    "ollama_no_answer",
    "openai_key_refused",
    "openai_compatible",
    "openai_unreachable",
    "openai_timeout",
    "openai_connection",
    "openai_context_exceeded",
  ],
  unavailable: [
    "default",
    "database_busy",
    "database_unreachable",
    "answer_save_pending",
    "server_shutdown",
    "instance_unreachable",
  ],
  internal: ["default"],
  // The browser's own: it could not reach the server, the server's answer was not its error shape,
  // an upload's reply was unreadable, a run's stream was lost, a bug, or a code this page does not know.
  client: ["network", "http", "upload_reply", "lost", "failed", "unknown_code"],
  aborted: ["default"],
} as const;

export type ErrorKind = keyof typeof errorCatalogue;

/** The kinds the browser makes itself; the server never sends them. */
export type ClientErrorKind = "client" | "aborted";
export type ServerErrorKind = Exclude<ErrorKind, ClientErrorKind>;

type NameOf<K extends ErrorKind> = (typeof errorCatalogue)[K][number];
type CodeOf<K extends ErrorKind> = { [N in NameOf<K>]: N extends "default" ? K : `${K}:${N}` }[NameOf<K>];

/** Every code of the catalogue: `kind:name`, or the bare kind. */
export type ErrorCode = { [K in ErrorKind]: CodeOf<K> }[ErrorKind];
/** A code the server sends: in an API error, a run's `error` event, a pull's error line. */
export type ServerErrorCode = { [K in ServerErrorKind]: CodeOf<K> }[ServerErrorKind];

const CLIENT_KINDS: ReadonlySet<string> = new Set<ClientErrorKind>(["client", "aborted"]);

function codesOf(kinds: ErrorKind[]): string[] {
  return kinds.flatMap((kind) =>
    errorCatalogue[kind].map((name: string) => (name === "default" ? kind : `${kind}:${name}`)),
  );
}

const ALL_KINDS = Object.keys(errorCatalogue) as ErrorKind[];

export const errorCodes = codesOf(ALL_KINDS) as ErrorCode[];
export const serverErrorCodes = codesOf(ALL_KINDS.filter((kind) => !CLIENT_KINDS.has(kind))) as [
  ServerErrorCode,
  ...ServerErrorCode[],
];

const CODES: ReadonlySet<string> = new Set(errorCodes);
const SERVER_CODES: ReadonlySet<string> = new Set(serverErrorCodes);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && CODES.has(value);
}

export function isServerErrorCode(value: unknown): value is ServerErrorCode {
  return typeof value === "string" && SERVER_CODES.has(value);
}

/** A code's kind: its first part. */
export function kindOf(code: ErrorCode): ErrorKind {
  return code.split(":")[0] as ErrorKind;
}
