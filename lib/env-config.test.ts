import { describe, expect, it } from "vitest";
import { ConfigError, chosenStore, ollamaUrls, openAICompatibleServers, parseConfig } from "./env-config";

describe("configuration", () => {
  it("uses the seed's defaults when nothing is set", () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      OLLAMA_BASE_URL: "http://127.0.0.1:11434",
      DATA_DIR: "./data",
      HOST: "127.0.0.1",
      PORT: 3000,
      NUM_CTX: 16384,
      SEARCH_BACKEND: "duckduckgo",
      DUCKDUCKGO_URL: "https://html.duckduckgo.com/html/",
      SEARCH_MAX_RESULTS: 5,
      SCRAPE_MAX_CHARS: 4000,
      FETCH_MAX_RESULTS: 3,
      FETCH_MAX_CHARS: 8000,
      MAX_FETCH_MB: 10,
      MAX_PDF_PAGES: 25,
      MAX_TOOL_RESULT_CHARS: 6000,
      MAX_TOOL_CONTEXT_CHARS: 24000,
      MAX_TOOL_ROUNDS: 5,
      MAX_ITERATIONS: 50,
      PAGINATION_TOKEN_TTL: 1800,
      MAX_IMAGE_PIXELS: 16_000_000,
      MAX_IMAGE_FRAMES: 1000,
      IMAGE_DECODE_TIMEOUT_S: 15,
      IMAGE_DECODE_MEMORY_MB: 512,
      IMAGE_DECODE_CONCURRENCY: 2,
      TOOL_SELECTION_THRESHOLD: 12,
      TOOL_SELECTION_MAX: 6,
      SYNTHESIS_TRACE_CHARS: 2000,
      FETCH_ALLOW_PRIVATE: [],
    });
    expect(config.MODEL_GENERAL).toBeUndefined();
    expect(config.SEARXNG_URL).toBeUndefined();
  });

  it("reads numbers, model roles and the private allow-list from strings", () => {
    const config = parseConfig({
      NUM_CTX: "8192",
      MODEL_GENERAL: "qwen3:8b",
      MODEL_FAST: "  ",
      FETCH_ALLOW_PRIVATE: "127.0.0.1:8080, localhost:9000,[::1]:7000",
    });
    expect(config.NUM_CTX).toBe(8192);
    expect(config.MODEL_GENERAL).toBe("qwen3:8b");
    expect(config.MODEL_FAST).toBeUndefined();
    expect(config.FETCH_ALLOW_PRIVATE).toEqual(["127.0.0.1:8080", "localhost:9000", "[::1]:7000"]);
  });

  it("treats an empty variable as unset", () => {
    expect(parseConfig({ NUM_CTX: "", SEARXNG_URL: "" }).NUM_CTX).toBe(16384);
  });

  it.each([
    ["NUM_CTX", "lots"],
    ["NUM_CTX", "-1"],
    ["PORT", "70000"],
    ["OLLAMA_BASE_URL", "not a url"],
    ["OLLAMA_BASE_URL", "ftp://127.0.0.1"],
    ["SEARCH_BACKEND", "google"],
    ["MAX_TOOL_ROUNDS", "2.5"],
    ["FETCH_ALLOW_PRIVATE", "127.0.0.1"],
  ])("a bad %s stops start-up with one line naming it", (name, value) => {
    let error: unknown;
    try {
      parseConfig({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toContain(name);
    expect(message).toContain(`"${value}"`);
  });

  describe("the store", () => {
    it("DATABASE_URL unset is SQLite in DATA_DIR; a postgres:// or postgresql:// URL is PostgreSQL", () => {
      expect(chosenStore({})).toBe("sqlite");
      expect(chosenStore({ DATABASE_URL: "" })).toBe("sqlite");
      expect(chosenStore({ DATABASE_URL: "postgres://app@127.0.0.1/ollama_web" })).toBe("postgres");
      expect(chosenStore({ DATABASE_URL: "postgresql://app:pw@db.internal:5433/ollama_web?sslmode=require" })).toBe(
        "postgres",
      );
      expect(parseConfig({}).DATABASE_POOL_SIZE).toBe(10);
      expect(parseConfig({ DATABASE_POOL_SIZE: "25" }).DATABASE_POOL_SIZE).toBe(25);
    });

    it.each([
      "mysql://app:s3cret@127.0.0.1/ollama_web",
      "sqlite:///var/lib/ollama-web/db.sqlite",
      "./data/ollama-web.sqlite",
      "postgres://",
      "postgres://app:s3cret@[::1/x",
    ])(
      "a DATABASE_URL that is not PostgreSQL's (%s) stops the start with one line naming it, without its password",
      (value) => {
        expect(chosenStore({ DATABASE_URL: value })).toBe("sqlite");
        let error: unknown;
        try {
          parseConfig({ DATABASE_URL: value });
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(ConfigError);
        const message = (error as Error).message;
        expect(message.split("\n")).toHaveLength(1);
        expect(message).toContain("DATABASE_URL");
        expect(message).not.toContain("s3cret");
      },
    );

    it("a CLUSTER_SECRET under 32 characters stops the start with one line naming it, without its value", () => {
      expect(() => parseConfig({ CLUSTER_SECRET: "short-s3cret" })).toThrow(
        /^Invalid configuration: CLUSTER_SECRET must be at least 32 characters[^"\n]*$/,
      );
      expect(parseConfig({ CLUSTER_SECRET: "x".repeat(32) }).CLUSTER_SECRET).toBe("x".repeat(32));
      expect(parseConfig({}).CLUSTER_SECRET).toBeUndefined();
    });

    it("a bad DATABASE_POOL_SIZE or DATABASE_CONNECT_TIMEOUT_MS stops the start", () => {
      expect(() => parseConfig({ DATABASE_POOL_SIZE: "0" })).toThrow(/DATABASE_POOL_SIZE/);
      expect(() => parseConfig({ DATABASE_CONNECT_TIMEOUT_MS: "soon" })).toThrow(/DATABASE_CONNECT_TIMEOUT_MS/);
    });
  });

  describe("several Ollama servers", () => {
    it("OLLAMA_BASE_URLS is a comma-separated list; without it, OLLAMA_BASE_URL is the one server", () => {
      const many = parseConfig({ OLLAMA_BASE_URLS: " http://10.0.0.2:11434, http://10.0.0.3:11434 ," });
      expect(ollamaUrls(many)).toEqual(["http://10.0.0.2:11434", "http://10.0.0.3:11434"]);
      expect(ollamaUrls(parseConfig({}))).toEqual(["http://127.0.0.1:11434"]);
      expect(ollamaUrls(parseConfig({ OLLAMA_BASE_URL: "http://gpu:11434" }))).toEqual(["http://gpu:11434"]);
    });

    it.each([
      ["both set", { OLLAMA_BASE_URL: "http://a:1", OLLAMA_BASE_URLS: "http://b:1" }, /both set/],
      [
        "a bad URL in the list",
        { OLLAMA_BASE_URLS: "http://a:1,ftp://b:1" },
        /OLLAMA_BASE_URLS must be an http\(s\) URL/,
      ],
      ["a server twice", { OLLAMA_BASE_URLS: "http://a:1,http://A:1/" }, /OLLAMA_BASE_URLS must name each server once/],
      ["only commas", { OLLAMA_BASE_URLS: " , ," }, /OLLAMA_BASE_URLS must list at least one/],
    ])("refuses %s at start with one line naming OLLAMA_BASE_URLS", (_, env, message) => {
      expect(() => parseConfig(env)).toThrow(ConfigError);
      expect(() => parseConfig(env)).toThrow(message);
    });
  });
});

describe("OpenAI-compatible servers (OPENAI_COMPATIBLE_URLS, OPENAI_COMPATIBLE_KEYS)", () => {
  const servers = (env: Record<string, string>) => openAICompatibleServers(parseConfig(env));

  it("none are configured unless OPENAI_COMPATIBLE_URLS names them, and Ollama stays the default", () => {
    const config = parseConfig({});
    expect(openAICompatibleServers(config)).toEqual([]);
    expect(ollamaUrls(config)).toEqual(["http://127.0.0.1:11434"]);
  });

  it("reads label=URL entries, labels a bare URL with its host name, and pairs each key with its label", () => {
    expect(
      servers({
        OPENAI_COMPATIBLE_URLS: "llama=http://127.0.0.1:8080/v1/, http://gpu-box:8000/v1",
        OPENAI_COMPATIBLE_KEYS: "GPU-BOX=sk-a=b",
      }),
    ).toEqual([
      { label: "llama", baseUrl: "http://127.0.0.1:8080/v1" },
      { label: "gpu-box", baseUrl: "http://gpu-box:8000/v1", apiKey: "sk-a=b" },
    ]);
  });

  it("refuses a label used twice, a label that could not end a model id, and a URL that is not http(s)", () => {
    expect(() => servers({ OPENAI_COMPATIBLE_URLS: "a=http://127.0.0.1:1/v1,A=http://127.0.0.1:2/v1" })).toThrow(
      /OPENAI_COMPATIBLE_URLS names the label "a" twice/,
    );
    expect(() => servers({ OPENAI_COMPATIBLE_URLS: "http://127.0.0.1:1/v1,http://127.0.0.1:2/v1" })).toThrow(
      /label "127.0.0.1" twice/,
    );
    expect(() => servers({ OPENAI_COMPATIBLE_URLS: "a:b=http://127.0.0.1:1/v1" })).toThrow(/label "a:b"/);
    expect(() => servers({ OPENAI_COMPATIBLE_URLS: "a=ftp://127.0.0.1/v1" })).toThrow(/not an http\(s\) URL/);
  });

  it("refuses a key for no configured server, and never repeats the keys in its error", () => {
    expect(() =>
      servers({ OPENAI_COMPATIBLE_URLS: "a=http://127.0.0.1:1/v1", OPENAI_COMPATIBLE_KEYS: "b=sk-secret" }),
    ).toThrow(/OPENAI_COMPATIBLE_KEYS has a key for "b", which is no label/);
    try {
      servers({ OPENAI_COMPATIBLE_URLS: "a=http://127.0.0.1:1/v1", OPENAI_COMPATIBLE_KEYS: "sk-secret" });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).toMatch(/OPENAI_COMPATIBLE_KEYS must be label=key pairs/);
      expect(String(error)).not.toContain("sk-secret");
    }
  });
});
