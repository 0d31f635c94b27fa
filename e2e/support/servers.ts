/** Where the servers that playwright.config.ts starts listen. */
export const FAKE_OLLAMA_PORT = 11499;
export const FAKE_OLLAMA_URL = `http://127.0.0.1:${FAKE_OLLAMA_PORT}`;
export const APP_URL = "http://127.0.0.1:3100";
/** A second app instance whose OLLAMA_BASE_URL points at a port nobody listens on. */
export const APP_OLLAMA_DOWN_URL = "http://127.0.0.1:3101";
