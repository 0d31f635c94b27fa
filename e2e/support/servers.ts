/** Where the servers that playwright.config.ts starts listen. */
export const FAKE_OLLAMA_PORT = 11499;
export const FAKE_OLLAMA_URL = `http://127.0.0.1:${FAKE_OLLAMA_PORT}`;
export const APP_URL = "http://127.0.0.1:3100";
/** A second app instance whose OLLAMA_BASE_URL points at a port nobody listens on. */
export const APP_OLLAMA_DOWN_URL = "http://127.0.0.1:3101";
/** Fake web pages, PDFs and a DuckDuckGo-shaped search page; the app may fetch it (FETCH_ALLOW_PRIVATE). */
export const FAKE_WEB_PORT = 11500;
export const FAKE_WEB_URL = `http://127.0.0.1:${FAKE_WEB_PORT}`;
/** A third app instance with accounts required (AUTH_MODE=required), its own empty data, the same fake Ollama. */
export const APP_ACCOUNTS_URL = "http://127.0.0.1:3102";
/** That instance's setup token (SETUP_TOKEN), which its first sign-up needs, as an operator's would be from the log. */
export const APP_ACCOUNTS_SETUP_TOKEN = "e2e-accounts-setup-token-0001";
/**
 * A fake OpenAI-compatible server (tests/fake-openai, vLLM's flavour) that the first app instance also
 * lists, under three labels (OPENAI_COMPATIBLE_URLS): `llama` and `gpu` with its key, `locked` with a
 * wrong one. Ollama's models stay the default.
 */
export const FAKE_OPENAI_PORT = 11501;
export const FAKE_OPENAI_URL = `http://127.0.0.1:${FAKE_OPENAI_PORT}`;
export const FAKE_OPENAI_KEY = "e2e-openai-key-0001";
/** The OpenAI-compatible servers the first app instance is given, by label. */
export const APP_OPENAI_SERVERS = { llama: FAKE_OPENAI_KEY, gpu: FAKE_OPENAI_KEY, locked: "e2e-wrong-key" } as const;
