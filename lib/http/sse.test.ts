import { describe, expect, it } from "vitest";
import { formatSse, SSE_HEADERS, type SseEvent, sseResponse } from "./sse";

describe("SSE framing", () => {
  it("frames an event as event/data lines ending in a blank line, with the id when stored", () => {
    expect(formatSse({ event: "answer", data: { status: "delta", content: "a\nb" } })).toBe(
      'event: answer\ndata: {"status":"delta","content":"a\\nb"}\n\n',
    );
    expect(formatSse({ event: "run", data: {}, id: 3 })).toBe("id: 3\nevent: run\ndata: {}\n\n");
  });

  it("sends the headers that keep proxies from buffering or transforming the stream", () => {
    const response = sseResponse(() => () => {});
    for (const [name, value] of Object.entries(SSE_HEADERS)) expect(response.headers.get(name)).toBe(value);
    void response.body?.cancel();
  });

  it("writes a keepalive comment on an interval while the stream is open", async () => {
    const response = sseResponse(() => () => {}, { keepaliveMs: 10 });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    // Two reads past the opening comment: the first keepalive, then the next one on the interval.
    for (let reads = 0; reads < 3; reads++) text += decoder.decode((await reader.read()).value);
    await reader.cancel();
    expect(text.startsWith(": connected\n\n")).toBe(true);
    expect(text.split(": keepalive\n\n").length - 1).toBeGreaterThanOrEqual(2);
  });

  it("unsubscribes when the client goes away", async () => {
    let unsubscribed = false;
    const response = sseResponse(() => () => {
      unsubscribed = true;
    });
    await response.body!.cancel();
    expect(unsubscribed).toBe(true);
  });

  it("ends the response when the producer closes", async () => {
    const response = sseResponse((send, close) => {
      send({ event: "done", data: { ok: true } });
      close();
      return () => {};
    });
    expect(await response.text()).toBe(': connected\n\nevent: done\ndata: {"ok":true}\n\n');
  });

  it("writes the events sent in one turn of the event loop as one chunk, in order", async () => {
    let send: (event: SseEvent) => void = () => {};
    const response = sseResponse((s) => {
      send = s;
      return () => {};
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe(": connected\n\n");
    for (let k = 1; k <= 50; k++) send({ event: "answer", data: { status: "delta", content: `t${k} ` }, id: `2.${k}` });
    const chunk = decoder.decode((await reader.read()).value);
    await reader.cancel();
    expect(chunk).toBe(
      Array.from({ length: 50 }, (_, i) =>
        formatSse({ event: "answer", data: { status: "delta", content: `t${i + 1} ` }, id: `2.${i + 1}` }),
      ).join(""),
    );
  });

  it("flushes a lone event at once, without waiting for another event or the keepalive", async () => {
    let send: (event: SseEvent) => void = () => {};
    const response = sseResponse(
      (s) => {
        send = s;
        return () => {};
      },
      { keepaliveMs: 3_600_000 },
    );
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    await reader.read(); // ": connected"
    setTimeout(() => send({ event: "answer", data: { status: "start" }, id: 2 }), 0);
    const chunk = decoder.decode((await reader.read()).value);
    await reader.cancel();
    expect(chunk).toBe('id: 2\nevent: answer\ndata: {"status":"start"}\n\n');
  });
});
