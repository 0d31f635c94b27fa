import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { startPulls } from "@/lib/llm/ollama-pull";
import { getOllamaPool } from "@/lib/llm/registry";
import { modelBody } from "../../schema";

export const dynamic = "force-dynamic";

const NDJSON_HEADERS = {
  "Content-Type": "application/x-ndjson; charset=utf-8",
  "Cache-Control": "no-cache, no-transform",
  "X-Accel-Buffering": "no",
};

/**
 * Pulls a model onto one server (`server`) or every one, streaming its progress as NDJSON
 * `PullEvent`s (docs/api.md). The client closing the response closes the request to Ollama, which
 * cancels the download.
 */
export const POST = apiRoute(
  async (request: Request) => {
    const { model, server } = await parseJsonBody(request, modelBody);
    const pool = getOllamaPool();
    const baseUrls = pool.targets(server).map((target) => target.url);
    const cancel = new AbortController();
    const signal = AbortSignal.any([request.signal, cancel.signal]);
    const events = await startPulls({ baseUrls, model, signal });
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await events.next();
          if (next.done) return controller.close();
          if (next.value.type === "success") pool.forgetModels();
          controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`));
        } catch (error) {
          if (!signal.aborted) return controller.error(error);
          try {
            controller.close();
          } catch {
            // the client cancelled the stream already
          }
        }
      },
      cancel() {
        cancel.abort();
      },
    });
    return new Response(body, { headers: NDJSON_HEADERS });
  },
  { admin: true },
);
