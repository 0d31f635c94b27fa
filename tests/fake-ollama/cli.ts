// Runs the fake Ollama as its own process for Playwright and manual testing:
//   FAKE_OLLAMA_PORT=11435 npx tsx tests/fake-ollama/cli.ts
// Drive it from other processes through the control API (POST /__fake/script, GET /__fake/requests, ...).
import { startFakeOllama } from "./server";

async function main() {
  const raw = process.env.FAKE_OLLAMA_PORT ?? "11435";
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`FAKE_OLLAMA_PORT must be a port number, got ${JSON.stringify(raw)}`);
  }
  const fake = await startFakeOllama({ port, host: "127.0.0.1" });
  console.log(`fake ollama listening on ${fake.url}`);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    fake.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("fake ollama: close failed", error);
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error("fake ollama:", error instanceof Error ? error.message : error);
  process.exit(1);
});
