// The fake Ollama for e2e: tests/fake-ollama with one addition to its echo responder. The app asks
// the model for a conversation title after the first answer; an echo would name every
// conversation "Echo: …", so here the title request is answered with the question itself, and
// tests find conversations in the sidebar by what they asked.
//   FAKE_OLLAMA_PORT=11499 npx tsx e2e/support/fake-ollama-server.ts

import { defaultReply, lastUserText } from "../../tests/fake-ollama/reply";
import type { ChatRequestBody, ScriptedReply } from "../../tests/fake-ollama/server";
import { startFakeOllama } from "../../tests/fake-ollama/server";

const TITLE_REQUEST = /Write a short title|短いタイトル/;

function e2eReply(req: ChatRequestBody): ScriptedReply {
  const text = lastUserText(req);
  if (req.stream === false && !req.tools?.length && TITLE_REQUEST.test(text)) {
    // "Question:\n<question>\n\nAnswer:\n…": the title is the question.
    const question = /^[^\n]*[:：]\n([\s\S]*?)\n\n/.exec(text)?.[1]?.trim();
    return { content: question || "New chat" };
  }
  return defaultReply(req);
}

async function main() {
  const port = Number(process.env.FAKE_OLLAMA_PORT ?? "11499");
  const fake = await startFakeOllama({ port, host: "127.0.0.1" });
  fake.setDefaultResponder(e2eReply);
  // POST /__fake/reset puts the plain echo back; keep this responder across resets.
  const reset = fake.reset.bind(fake);
  fake.reset = () => {
    reset();
    fake.setDefaultResponder(e2eReply);
  };
  console.log(`fake ollama (e2e) listening on ${fake.url}`);
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => void fake.close().then(() => process.exit(0)));
  }
}

main().catch((error: unknown) => {
  console.error("fake ollama:", error instanceof Error ? error.message : error);
  process.exit(1);
});
