// Runs the fake OpenAI-compatible server as its own process for Playwright and manual testing:
//   FAKE_OPENAI_PORT=8089 FAKE_OPENAI_FLAVOR=vllm FAKE_OPENAI_API_KEY=secret npx tsx tests/fake-openai/cli.ts
// It prints "fake openai (<flavor>) listening on <url>" (the root, without /v1; port 0 picks a free one).
// Drive it from other processes through the control API (POST /__fake/script, GET /__fake/requests, ...).
import { type Flavor, startFakeOpenAI } from "./server";

async function main() {
  const raw = process.env.FAKE_OPENAI_PORT ?? "8089";
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`FAKE_OPENAI_PORT must be a port number, got ${JSON.stringify(raw)}`);
  }
  const flavor = process.env.FAKE_OPENAI_FLAVOR ?? "llama-server";
  if (flavor !== "llama-server" && flavor !== "vllm") {
    throw new Error(`FAKE_OPENAI_FLAVOR must be llama-server or vllm, got ${JSON.stringify(flavor)}`);
  }
  const apiKey = process.env.FAKE_OPENAI_API_KEY || undefined;
  const fake = await startFakeOpenAI({ port, host: "127.0.0.1", flavor: flavor as Flavor, apiKey });
  console.log(`fake openai (${flavor}) listening on ${fake.url}`);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    fake.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("fake openai: close failed", error);
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error("fake openai:", error instanceof Error ? error.message : error);
  process.exit(1);
});
