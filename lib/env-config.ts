import { isIP } from "node:net";
import { z } from "zod";
import { KEEP_ALIVE_HINT, keepAliveValue } from "./llm/keep-alive";

/**
 * Every setting comes from the environment, validated once at boot (docs/architecture.md, "Layers":
 * config, not the admin's settings). Over 300 lines on purpose: one zod schema holds every variable
 * with its default and its check, so each is found in one place.
 */

const positiveInt = (fallback: number) =>
  z.coerce
    .number({ error: "must be a positive whole number" })
    .int({ error: "must be a positive whole number" })
    .positive({ error: "must be a positive whole number" })
    .default(fallback);

const httpUrl = z
  .string()
  .url({ error: "must be an http(s) URL" })
  .refine((value) => /^https?:\/\//i.test(value), "must be an http(s) URL");

/** A comma-separated list of http(s) URLs, each named once (a trailing slash does not make another). */
const httpUrlList = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(httpUrl)
      .min(1, { error: "must list at least one http(s) URL" })
      .refine(
        (urls) => new Set(urls.map((url) => url.replace(/\/+$/, "").toLowerCase())).size === urls.length,
        "must name each server once",
      ),
  );

const optionalModel = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value ? value : undefined));

const hostPortList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? "")
      .split(",")
      .map((entry) => entry.trim().toLowerCase())
      .filter(Boolean),
  )
  .refine(
    (entries) => entries.every((entry) => /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):\d{1,5}$/.test(entry)),
    "must be a comma-separated list of host:port",
  );

/** The store: a PostgreSQL URL, or unset for SQLite in DATA_DIR (docs/deploy.md, "PostgreSQL"). */
const databaseUrl = z
  .string()
  .trim()
  .refine(
    (value) => /^postgres(ql)?:\/\/./i.test(value) && URL.canParse(value),
    "must be a postgres:// or postgresql:// URL, or unset for SQLite in DATA_DIR",
  )
  .optional();

/** Variables whose value an error must not repeat (a URL's password ends up in the logs). */
const SECRET_VARIABLES = new Set(["DATABASE_URL", "SETUP_TOKEN", "CLUSTER_SECRET", "OPENAI_COMPATIBLE_KEYS"]);

/** A server's label: it names the server in messages and ids, so it has no `@`, `:` or spaces. */
const SERVER_LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;
const LABEL_HINT = "letters, digits, '.', '_' or '-' (up to 40, starting with a letter or digit)";

/** One `label=value` entry, split at its first `=`; a bare value has no label. */
function labelled(entry: string): { label?: string; value: string } {
  const at = entry.indexOf("=");
  // A URL's own `=` (a query) comes after its scheme, so a label is what precedes "=http".
  if (at <= 0 || /^https?:\/\//i.test(entry)) return { value: entry };
  return { label: entry.slice(0, at).trim(), value: entry.slice(at + 1).trim() };
}

const commaEntries = (value: string) =>
  value
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);

/**
 * OpenAI-compatible servers (llama-server, vLLM, …; docs/deploy.md): comma-separated
 * `label=http(s)://host:port/v1`; a bare URL is labelled with its host name. Labels are unique.
 */
const openAIServerList = z.string().transform((value, context) => {
  const servers = commaEntries(value).map((entry) => {
    const { label, value: url } = labelled(entry);
    return { url, label: label ?? (URL.canParse(url) ? new URL(url).hostname : url) };
  });
  for (const { url, label } of servers) {
    if (!httpUrl.safeParse(url).success) {
      context.addIssue({ code: "custom", message: `has "${url}", which is not an http(s) URL` });
      return z.NEVER;
    }
    if (!SERVER_LABEL.test(label)) {
      context.addIssue({ code: "custom", message: `has the label "${label}"; a label is ${LABEL_HINT}` });
      return z.NEVER;
    }
  }
  const labels = servers.map((server) => server.label.toLowerCase());
  const twice = labels.find((label, index) => labels.indexOf(label) !== index);
  if (twice !== undefined) {
    context.addIssue({
      code: "custom",
      message: `names the label "${twice}" twice; give each server its own label=URL`,
    });
    return z.NEVER;
  }
  return servers;
});

/** `label=key` pairs, comma-separated, for the servers of OPENAI_COMPATIBLE_URLS that need one. */
const openAIKeyList = z.string().transform((value, context) => {
  const keys = new Map<string, string>();
  for (const entry of commaEntries(value)) {
    const { label, value: key } = labelled(entry);
    if (label === undefined || !key) {
      context.addIssue({ code: "custom", message: "must be label=key pairs, comma-separated" });
      return z.NEVER;
    }
    keys.set(label.toLowerCase(), key);
  }
  return keys;
});

/** Addresses (IPv4/IPv6) or CIDR ranges; "none" trusts no proxy. */
const addressRangeList = z
  .string()
  .transform((value) =>
    value.trim().toLowerCase() === "none"
      ? []
      : value
          .split(",")
          .map((entry) => entry.trim())
          .filter(Boolean),
  )
  .refine((entries) => entries.every(isAddressRange), "must be a comma-separated list of IP addresses or CIDR ranges");

export const configSchema = z
  .object({
    OLLAMA_BASE_URL: httpUrl.default("http://127.0.0.1:11434"),
    /** Several Ollama servers, instead of OLLAMA_BASE_URL (docs/architecture.md, "Model access"). */
    OLLAMA_BASE_URLS: httpUrlList.optional(),
    /**
     * How long a server may take to start answering a chat (headers, after loading the model) before
     * the request moves on to the next server that has the model; only when there is one.
     */
    OLLAMA_FAILOVER_TIMEOUT_S: positiveInt(120),
    /** OpenAI-compatible servers beside Ollama (docs/deploy.md, "llama-server and vLLM"). */
    OPENAI_COMPATIBLE_URLS: openAIServerList.optional(),
    /** Their API keys, `label=key`; never shown anywhere. */
    OPENAI_COMPATIBLE_KEYS: openAIKeyList.optional(),
    /** A server's model's context length when the server does not say (llama-server /props, vLLM max_model_len). */
    OPENAI_COMPATIBLE_CONTEXT: positiveInt(8192),
    DATA_DIR: z.string().min(1).default("./data"),
    HOST: z.string().min(1).default("127.0.0.1"),
    PORT: z.coerce
      .number({ error: "must be a port number (1-65535)" })
      .int({ error: "must be a port number (1-65535)" })
      .min(1, { error: "must be a port number (1-65535)" })
      .max(65535, { error: "must be a port number (1-65535)" })
      .default(3000),
    MODEL_GENERAL: optionalModel,
    MODEL_FAST: optionalModel,
    MODEL_REASONING: optionalModel,
    MODEL_VISION: optionalModel,
    NUM_CTX: positiveInt(16384),
    /** Longest instructions a chat or preset may carry (characters): they go into every model call. */
    MAX_INSTRUCTIONS_CHARS: positiveInt(8000),
    /** The user's memories a turn's system prompt may carry (characters): all while they fit, else the most relevant. */
    MEMORY_MAX_CHARS: positiveInt(4000),
    /** How long Ollama keeps a model loaded after a request, unless the settings page sets its role's. */
    OLLAMA_KEEP_ALIVE: z
      .string()
      .trim()
      .default("5m")
      .refine((value) => keepAliveValue(value) !== undefined, `must be ${KEEP_ALIVE_HINT}`),
    SEARCH_BACKEND: z.enum(["duckduckgo", "searxng"], { error: "must be duckduckgo or searxng" }).default("duckduckgo"),
    DUCKDUCKGO_URL: httpUrl.default("https://html.duckduckgo.com/html/"),
    SEARXNG_URL: httpUrl.optional(),
    SEARCH_MAX_RESULTS: positiveInt(5),
    SCRAPE_MAX_CHARS: positiveInt(4000),
    /** Longest URL a tool fetches when the model chose it (sitemaps.org caps a URL at 2,048 characters too). */
    MAX_URL_CHARS: positiveInt(2048),
    /**
     * A model-chosen URL repeating this many letters and digits of the conversation's or its files' text
     * in a row (decoded) is refused: it would send them to the site. Shorter runs are ordinary (a name, a title).
     */
    URL_LEAK_MIN_CHARS: z.coerce
      .number({ error: "must be a whole number of at least 16" })
      .int({ error: "must be a whole number of at least 16" })
      .min(16, { error: "must be a whole number of at least 16" })
      .default(32),
    FETCH_MAX_RESULTS: positiveInt(3),
    FETCH_MAX_CHARS: positiveInt(8000),
    MAX_FETCH_MB: positiveInt(10),
    MAX_PDF_PAGES: positiveInt(25),
    /** Each open PDF is parsed in its own worker process: its JavaScript heap is capped at this size. */
    PDF_WORKER_MEMORY_MB: positiveInt(256),
    /** Parsing time one tool call (or one upload check) may spend on a PDF before its worker is stopped. */
    PDF_TIME_BUDGET_S: positiveInt(10),
    /** Largest buffer one decoded stream of a PDF may grow to (a Flate bomb stops there). */
    PDF_MAX_STREAM_MB: positiveInt(32),
    /** Text items, and characters, one page may yield; a page with more is skipped with a warning. */
    PDF_MAX_PAGE_ITEMS: positiveInt(20_000),
    PDF_MAX_PAGE_CHARS: positiveInt(200_000),
    /** PDF workers parsing at the same time; others wait their turn (their time budget does not run). */
    PDF_WORKER_CONCURRENCY: positiveInt(2),
    /**
     * A PDF with this many pages or more is parsed by two workers, even pages on one and odd on the
     * other, so paging through it uses a second core; a shorter one is read in a call or two, where
     * starting and opening a second worker costs about what it saves.
     */
    PDF_TWO_WORKERS_MIN_PAGES: positiveInt(16),
    /** Open PDF documents kept for continuation calls (one idle worker each), and for how long unused. */
    PDF_OPEN_DOCUMENTS: positiveInt(4),
    PDF_KEEP_OPEN_S: positiveInt(300),
    /**
     * Files one conversation may hold (uploaded, fetched by tools, imported), files one project may
     * hold, and MB one user's files may take in all.
     */
    MAX_FILES_PER_CONVERSATION: positiveInt(200),
    MAX_FILES_PER_PROJECT: positiveInt(500),
    MAX_STORAGE_MB_PER_USER: positiveInt(2048),
    /** Attached text files (TXT, MD, CSV, JSON, HTML) are refused over this size. */
    MAX_TEXT_FILE_MB: positiveInt(5),
    /** A DOCX is refused when its entries inflate to more than this, before it is converted. */
    DOCX_MAX_INFLATED_MB: positiveInt(64),
    /** DOCX files are converted in worker threads: this heap cap, this long per file, this many at once. */
    DOCX_WORKER_MEMORY_MB: positiveInt(256),
    DOCX_TIME_BUDGET_S: positiveInt(10),
    DOCX_WORKER_CONCURRENCY: positiveInt(2),
    /** Text read from attachments, kept for continuation calls (least recently read dropped first). */
    ATTACHMENT_TEXT_CACHE_MB: positiveInt(32),
    /** Characters of a text or DOCX file shown in its preview. */
    FILE_PREVIEW_CHARS: positiveInt(20_000),
    MAX_TOOL_RESULT_CHARS: positiveInt(6000),
    MAX_TOOL_CONTEXT_CHARS: positiveInt(24000),
    MAX_TOOL_ROUNDS: positiveInt(5),
    MAX_ITERATIONS: positiveInt(50),
    PAGINATION_TOKEN_TTL: positiveInt(1800),
    /** Extracted text of fetched pages kept for continuation calls (each for PAGINATION_TOKEN_TTL): pages, and size. */
    PAGE_TEXT_CACHE_ENTRIES: positiveInt(64),
    PAGE_TEXT_CACHE_MB: positiveInt(32),
    MAX_IMAGE_PIXELS: positiveInt(16_000_000),
    /** Frames of an animated image (GIF, APNG, WebP); each one is decoded state a decoder may hold. */
    MAX_IMAGE_FRAMES: positiveInt(1000),
    /** Images are decoded in a child process, killed after this long; its memory is capped (Linux: data segment). */
    IMAGE_DECODE_TIMEOUT_S: positiveInt(15),
    IMAGE_DECODE_MEMORY_MB: positiveInt(512),
    IMAGE_DECODE_CONCURRENCY: positiveInt(2),
    TOOL_SELECTION_THRESHOLD: positiveInt(12),
    TOOL_SELECTION_MAX: positiveInt(6),
    /** MCP: how long one tool call may take (then it is cancelled on its server), and connecting to a server. */
    MCP_CALL_TIMEOUT_S: positiveInt(60),
    MCP_CONNECT_TIMEOUT_S: positiveInt(15),
    /** MCP: the largest image or HTML/Markdown document a tool result may show as an artifact. */
    MCP_MAX_ARTIFACT_MB: positiveInt(2),
    /**
     * MCP: the largest message a server may send (a tool list, a result). A larger one closes the
     * connection before it is held; above MCP_MAX_ARTIFACT_MB, whose images arrive as base64.
     */
    MCP_MAX_MESSAGE_MB: positiveInt(8),
    /** MCP: how long a call that needs the user's approval waits for it; then it is denied. */
    TOOL_APPROVAL_TIMEOUT_S: positiveInt(300),
    SYNTHESIS_TRACE_CHARS: positiveInt(2000),
    /** Replies longer than this are never read as a tool call written as text (recognition runs on every reply). */
    TOOL_CALL_TEXT_MAX_CHARS: positiveInt(200_000),
    /** DAG mode: steps a plan may have, how many run at once, extra planning rounds after the analyzer. */
    DAG_MAX_STEPS: positiveInt(10),
    DAG_MAX_CONCURRENCY: positiveInt(4),
    DAG_MAX_REPLANS: z.coerce
      .number({ error: "must be a whole number, 0 or more" })
      .int({ error: "must be a whole number, 0 or more" })
      .min(0, { error: "must be a whole number, 0 or more" })
      .default(1),
    /** DAG mode: model calls one step may make, and all steps of a run together. */
    DAG_STEP_MAX_ITERATIONS: positiveInt(10),
    DAG_RUN_MAX_ITERATIONS: positiveInt(40),
    /** DAG mode: characters of its dependencies' results a step's query carries, shared among them. */
    DAG_DEPENDENCY_CHARS: positiveInt(4000),
    /** Research mode (docs/research.md, "Research mode"): sources one run may read, and its minutes of gathering. */
    RESEARCH_MAX_SOURCES: positiveInt(30),
    RESEARCH_MAX_MINUTES: positiveInt(20),
    /** Verifier calls (docs/research.md, "Checking citations") at once on an app instance, over every check. */
    CITATION_VERIFY_CONCURRENCY: positiveInt(2),
    FETCH_ALLOW_PRIVATE: hostPortList,
    /** auto: accounts when HOST is not loopback; required: always (behind a reverse proxy); off: never (loopback only). */
    AUTH_MODE: z.enum(["auto", "required", "off"], { error: "must be auto, required or off" }).default("auto"),
    SESSION_TTL_DAYS: positiveInt(30),
    /**
     * With accounts and no user yet, the first sign-up needs a one-time setup token, printed in the log
     * at start; set one here instead when the log is awkward to read (a container). At least 16 characters.
     */
    SETUP_TOKEN: z.string().trim().min(16, { error: "must be at least 16 characters" }).optional(),
    /** Proxies whose X-Forwarded-For / X-Real-IP name the client; loopback = the nginx of docs/deploy.md. */
    TRUSTED_PROXIES: addressRangeList.default(["127.0.0.0/8", "::1"]),
    /** Failed sign-ins counted per account and per client address within LOGIN_WINDOW_MIN minutes. */
    LOGIN_FAILURES_PER_ACCOUNT: positiveInt(5),
    LOGIN_FAILURES_PER_ADDRESS: positiveInt(20),
    LOGIN_WINDOW_MIN: positiveInt(15),
    MAX_RUNS_PER_USER: positiveInt(2),
    MAX_RUNS_TOTAL: positiveInt(8),
    /** Follow-ups one run takes while it works (each reaches the model and the conversation), in number and bytes. */
    MAX_INTERRUPTS_PER_RUN: positiveInt(20),
    MAX_INTERRUPT_BYTES_PER_RUN: positiveInt(64 * 1024),
    /** Upper bound on one model request; a local model can be slow, a hung one must not hold a run forever. */
    OLLAMA_TIMEOUT_S: positiveInt(600),
    /** Longest NDJSON line (or non-streamed body) taken from Ollama; a broken server cannot fill memory with one line. */
    OLLAMA_MAX_LINE_MB: positiveInt(16),
    /** A new chat given files but never a message is removed this long after its last file (a closed tab). */
    ABANDONED_CHAT_HOURS: positiveInt(24),
    /** A JSON file in the `{"mcpServers": {...}}` format (Claude Desktop, Cursor): servers shown read-only in settings. */
    MCP_CONFIG: z.string().trim().min(1).optional(),
    /** 1: admins may add and edit stdio MCP servers (commands this machine runs) from the settings page and API. */
    MCP_STDIO_FROM_UI: z.enum(["0", "1"], { error: "must be 0 or 1" }).default("0"),
    /** Import of conversations: the upload (a JSON export or a ZIP of them), and each conversation's JSON in a ZIP. */
    IMPORT_MAX_MB: positiveInt(100),
    /** What a ZIP being imported may inflate to in all; every entry is measured before anything is stored. */
    IMPORT_MAX_INFLATED_MB: positiveInt(500),
    /** Messages one imported conversation may have (every version and branch counted). */
    IMPORT_MAX_MESSAGES: positiveInt(20_000),
    /** Imports one user, and all users, may run at once on an app instance (each holds its upload in memory). */
    MAX_IMPORTS_PER_USER: positiveInt(1),
    MAX_IMPORTS_TOTAL: positiveInt(2),
    /** How long a write waits for another connection's lock; SQLite blocks the whole server meanwhile. */
    DB_BUSY_TIMEOUT_MS: positiveInt(300),
    /** PostgreSQL instead of SQLite (lib/db/schema.ts hands out the chosen store's tables). */
    DATABASE_URL: databaseUrl,
    /** Connections the app keeps open to PostgreSQL at most; a query waits for a free one. */
    DATABASE_POOL_SIZE: positiveInt(10),
    /** How long a query waits for a PostgreSQL connection before the request gets a 503 with Retry-After. */
    DATABASE_CONNECT_TIMEOUT_MS: positiveInt(5000),
    /** With PostgreSQL, how often an app instance says it is alive; one silent for 3 heartbeats is dead. */
    INSTANCE_HEARTBEAT_S: positiveInt(5),
    /** With PostgreSQL, how long a stop or follow-up sent to the instance running the answer waits for its verdict (then 503). */
    INSTANCE_REQUEST_TIMEOUT_S: positiveInt(5),
    /**
     * With PostgreSQL, the key every message between app instances is signed with (HMAC-SHA256): the
     * same on every instance, at least 32 characters. Unset, the instance runs alone: it takes no
     * other process's message, and refuses to start while another instance is running.
     */
    CLUSTER_SECRET: z
      .string()
      .min(32, { error: "must be at least 32 characters (e.g. openssl rand -base64 32)" })
      .optional(),
    /** How old (or how far ahead of this instance's clock) a message between instances may be; older is dropped. */
    CLUSTER_MESSAGE_MAX_AGE_S: positiveInt(30),
    /** The longest message between instances (a followed run's backlog is sent in parts below it). */
    CLUSTER_MAX_MESSAGE_MB: positiveInt(16),
    /** Messages arriving in chunks put together at once; the oldest is dropped past this. */
    CLUSTER_MAX_PENDING_MESSAGES: positiveInt(32),
    /** Message ids remembered against replay within CLUSTER_MESSAGE_MAX_AGE_S. */
    CLUSTER_REPLAY_CACHE_ENTRIES: positiveInt(100_000),
    /** Clients following answers held by another instance through this one: per user, and per answer. */
    MAX_FOLLOWS_PER_USER: positiveInt(8),
    MAX_FOLLOWS_PER_RUN: positiveInt(16),
  })
  .superRefine((config, context) => {
    const labels = new Set((config.OPENAI_COMPATIBLE_URLS ?? []).map((server) => server.label.toLowerCase()));
    const stray = [...(config.OPENAI_COMPATIBLE_KEYS?.keys() ?? [])].find((label) => !labels.has(label));
    if (stray !== undefined) {
      context.addIssue({
        code: "custom",
        path: ["OPENAI_COMPATIBLE_KEYS"],
        message: `has a key for "${stray}", which is no label of OPENAI_COMPATIBLE_URLS`,
      });
    }
    if (config.AUTH_MODE === "off" && !isLoopbackHost(config.HOST)) {
      context.addIssue({
        code: "custom",
        path: ["AUTH_MODE"],
        message: `is off but HOST ${config.HOST} is not a loopback address; accounts are required there`,
      });
    }
  });

/** An IPv4/IPv6 address or a CIDR range of one ("10.0.0.0/8", "fd00::/8"). */
export function isAddressRange(entry: string): boolean {
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** Whether requests need a signed-in account. */
export function accountsRequired(config: Pick<Config, "AUTH_MODE" | "HOST">): boolean {
  return config.AUTH_MODE === "required" || (config.AUTH_MODE === "auto" && !isLoopbackHost(config.HOST));
}

export type Config = z.infer<typeof configSchema>;

/** The Ollama servers to use: OLLAMA_BASE_URLS, else the one of OLLAMA_BASE_URL. */
export function ollamaUrls(config: Pick<Config, "OLLAMA_BASE_URL" | "OLLAMA_BASE_URLS">): string[] {
  return config.OLLAMA_BASE_URLS ?? [config.OLLAMA_BASE_URL];
}

export interface OpenAICompatibleServer {
  label: string;
  baseUrl: string;
  apiKey?: string;
}

/** The OpenAI-compatible servers, in configured order, each with its key when it has one. */
export function openAICompatibleServers(
  config: Pick<Config, "OPENAI_COMPATIBLE_URLS" | "OPENAI_COMPATIBLE_KEYS">,
): OpenAICompatibleServer[] {
  return (config.OPENAI_COMPATIBLE_URLS ?? []).map(({ label, url }) => {
    const apiKey = config.OPENAI_COMPATIBLE_KEYS?.get(label.toLowerCase());
    return { label, baseUrl: url.replace(/\/+$/, ""), ...(apiKey ? { apiKey } : {}) };
  });
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Parses an environment; the error names the first bad variable in one line. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  // An empty variable means "unset", as in most .env tooling.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ""));
  if (cleaned.OLLAMA_BASE_URL !== undefined && cleaned.OLLAMA_BASE_URLS !== undefined) {
    throw new ConfigError(
      "Invalid configuration: OLLAMA_BASE_URLS and OLLAMA_BASE_URL are both set; keep OLLAMA_BASE_URLS (it may list one server) and remove OLLAMA_BASE_URL",
    );
  }
  const result = configSchema.safeParse(cleaned);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = String(issue?.path[0] ?? "configuration");
  const got = SECRET_VARIABLES.has(name) ? undefined : env[name];
  throw new ConfigError(
    `Invalid configuration: ${name} ${issue?.message ?? "is invalid"}${got === undefined ? "" : ` (got "${got}")`}`,
  );
}

export type Store = "sqlite" | "postgres";

/**
 * The store this process uses, chosen once from its environment at start: PostgreSQL when
 * DATABASE_URL is a postgres:// or postgresql:// URL. Reads that variable only and never throws, so
 * modules may ask when they load (`next build` too); a bad value stops the start in `getConfig`.
 */
export function chosenStore(env: Record<string, string | undefined> = process.env): Store {
  return databaseUrl.safeParse(env.DATABASE_URL || undefined).data ? "postgres" : "sqlite";
}

let cached: Config | undefined;

export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/** Tests change the environment between cases. */
export function resetConfigForTests(): void {
  cached = undefined;
}
