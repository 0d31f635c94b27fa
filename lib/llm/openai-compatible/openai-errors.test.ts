import http from "node:http";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { type Flavor, startFakeOpenAI } from "@/tests/fake-openai/server";
import { setupFakeOpenAI } from "@/tests/fake-openai/test-helpers";
import type { ChatMessage, LLM, ReplyPart } from "../types";
import { createOpenAICompatibleLLM, type OpenAICompatibleLLMOptions } from "./openai-llm";

const question: ChatMessage[] = [{ role: "user", content: "hello there" }];
const ABILITIES = { tool_call: true, json_mode: true, thinking: false, vision: false };

async function drain(stream: AsyncIterable<ReplyPart>): Promise<ReplyPart[]> {
  const parts: ReplyPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

function llmAt(baseUrl: string, options: Partial<OpenAICompatibleLLMOptions> = {}): LLM {
  return createOpenAICompatibleLLM({
    server: { label: "gpu-box", baseUrl },
    model: "Qwen/Qwen3-8B",
    abilities: ABILITIES,
    contextLength: 8192,
    ...options,
  });
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.each<Flavor>(["llama-server", "vllm"])(
  "errors of an OpenAI-compatible server (%s), naming it by its label",
  (flavor) => {
    const fake = setupFakeOpenAI({ flavor, models: [{ id: "Qwen/Qwen3-8B", contextLength: 200 }] });
    const llm = (options: Partial<OpenAICompatibleLLMOptions> = {}) => llmAt(`${fake().url}/v1`, options);

    it("a server error answer is an upstream error in the server's own words", async () => {
      fake().script({ errorStatus: 500, error: "CUDA out of memory" });
      const error = await llm()
        .chat(question)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({
        code: "upstream:openai_compatible",
        retryable: true,
        details: { server: "gpu-box" },
      });
      expect((error as Error).message).toBe('The server "gpu-box" answered: CUDA out of memory');
    });

    it("retries nothing: a failed call is one request, whole or streamed (the run decides what comes next)", async () => {
      fake().script({ errorStatus: 503, error: "Loading model" }, { errorStatus: 503, error: "Loading model" });
      await expect(llm().chat(question)).rejects.toMatchObject({ code: "upstream:openai_compatible" });
      await expect(drain(llm().streamReply(question))).rejects.toMatchObject({ code: "upstream:openai_compatible" });
      expect(fake().chatRequests()).toHaveLength(2);
    });

    it("a prompt longer than the server's context is a context error, not a generic failure", async () => {
      const long: ChatMessage[] = [{ role: "user", content: "word ".repeat(400) }];
      await expect(llm().chat(long)).rejects.toMatchObject({
        code: "upstream:openai_context_exceeded",
        details: { server: "gpu-box", model: "Qwen/Qwen3-8B" },
      });
      await expect(drain(llm().streamReply(long))).rejects.toMatchObject({ code: "upstream:openai_context_exceeded" });
    });

    it("an error event in the middle of a stream fails the reply with the server's message", async () => {
      fake().script({ chunks: ["Half ", "an answer"], midStreamError: "the fake model failed mid-answer" });
      const error = await drain(llm().streamReply(question)).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "upstream:openai_compatible" });
      expect((error as Error).message).toContain("the fake model failed mid-answer");
    });

    it("a stream cut before its finish is a broken connection, never a finished reply", async () => {
      fake().script({ chunks: ["Half ", "an answer"], dropConnection: true });
      await expect(drain(llm().streamReply(question))).rejects.toMatchObject({
        code: "upstream:openai_connection",
        details: { server: "gpu-box" },
      });
    });

    it("a call that outlasts the timeout ends as a timeout naming the server, and its request is closed", async () => {
      fake().script({ hang: true });
      await expect(drain(llm({ timeoutMs: 300 }).streamReply(question))).rejects.toMatchObject({
        code: "upstream:openai_timeout",
        details: { server: "gpu-box" },
      });
      await expect.poll(() => fake().chatRequests()[0]?.aborted).toBe(true);
    });
  },
);

describe("a refused key and a server that is away", () => {
  it("a wrong key is key_refused with a message naming the server's label, never the key", async () => {
    for (const flavor of ["llama-server", "vllm"] as const) {
      const fake = await startFakeOpenAI({ flavor, apiKey: "sk-right" });
      try {
        const llm = createOpenAICompatibleLLM({
          server: { label: "gpu-box", baseUrl: `${fake.url}/v1`, apiKey: "sk-wrong" },
          model: "Qwen/Qwen3-8B",
          abilities: ABILITIES,
          contextLength: 8192,
        });
        const error = await llm.chat(question).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: "upstream:openai_key_refused", details: { server: "gpu-box" } });
        expect((error as Error).message).toContain('"gpu-box" refused the API key (HTTP 401)');
        expect((error as Error).message).not.toContain("sk-wrong");
        await expect(drain(llm.streamReply(question))).rejects.toMatchObject({ code: "upstream:openai_key_refused" });
        expect(fake.chatRequests()[0]?.headers.authorization).toBe("Bearer sk-wrong");
      } finally {
        await fake.close();
      }
    }
  });

  it("a server nobody answers on is unreachable, naming its label and not its address", async () => {
    const port = await closedPort();
    const error = await llmAt(`http://127.0.0.1:${port}/v1`)
      .chat(question)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "upstream:openai_unreachable",
      retryable: true,
      details: { server: "gpu-box" },
    });
    expect((error as Error).message).toContain('"gpu-box"');
    expect((error as Error).message).not.toContain(String(port));
    await expect(drain(llmAt(`http://127.0.0.1:${port}/v1`).streamReply(question))).rejects.toMatchObject({
      code: "upstream:openai_unreachable",
    });
  });

  it("follows no redirect: the request, with its key, never goes on to another address", async () => {
    let reached = 0;
    const target = http.createServer((_request, response) => {
      reached++;
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    const to = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const redirecting = http.createServer((_request, response) => {
      response.writeHead(307, { location: `${to}/v1/chat/completions` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    try {
      const llm = createOpenAICompatibleLLM({
        server: {
          label: "moved",
          baseUrl: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/v1`,
          apiKey: "sk-secret",
        },
        model: "m",
        abilities: ABILITIES,
        contextLength: 8192,
      });
      await expect(llm.chat(question)).rejects.toMatchObject({ details: { server: "moved" } });
      expect(reached).toBe(0);
    } finally {
      await Promise.all([
        new Promise((resolve) => target.close(resolve)),
        new Promise((resolve) => redirecting.close(resolve)),
      ]);
    }
  });

  it("a model the server does not have is unknown_model, named as the app knows it", async () => {
    const fake = await startFakeOpenAI({ flavor: "vllm" });
    try {
      const llm = createOpenAICompatibleLLM({
        server: { label: "gpu-box", baseUrl: `${fake.url}/v1` },
        model: "gone/model",
        abilities: ABILITIES,
        contextLength: 8192,
      });
      await expect(llm.chat(question)).rejects.toMatchObject({
        code: "bad_request:unknown_model",
        details: { model: "gone/model@gpu-box" },
      });
    } finally {
      await fake.close();
    }
  });
});
