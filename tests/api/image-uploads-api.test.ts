import { createCanvas } from "@napi-rs/canvas";
import { describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as upload } from "@/app/api/conversations/[id]/files/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import { POST as create } from "@/app/api/conversations/route";
import { getDb } from "@/lib/db/client";
import { insertFile } from "@/lib/files/file-store";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { jsonRequest, params, readEvents, setupAppEnv } from "@/tests/support/app-env";
import {
  insertBeforeEoi,
  jpegSof,
  makeAnimatedWebp,
  makeGif,
  makeGifBomb,
  makePng,
  withDamagedCrc,
} from "@/tests/support/image-fixtures";

const fake = setupFakeOllama();
setupAppEnv(fake);

async function newConversation(model?: string): Promise<string> {
  const response = await create(jsonRequest("/api/conversations", "POST", model ? { model } : {}));
  return ((await response.json()) as { conversation: { id: string } }).conversation.id;
}

function uploadRequest(id: string, bytes: Uint8Array, filename: string): Promise<Response> {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(bytes)]), filename);
  return upload(
    new Request(`http://127.0.0.1/api/conversations/${id}/files`, { method: "POST", body: form }),
    params({ id }),
  );
}

async function detail(id: string) {
  return (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as {
    files: unknown[];
    messages: unknown[];
  };
}

function encoded(format: "png" | "jpeg" | "webp", width: number, height: number): Buffer {
  const canvas = createCanvas(width, height);
  canvas.getContext("2d").fillRect(0, 0, width / 2, height / 2);
  // biome-ignore lint/suspicious/noExplicitAny: encodeSync's overloads take one format at a time
  return Buffer.from(canvas.encodeSync(format as any, 90));
}

describe("image uploads are checked frame by frame before anything is stored", () => {
  it.each([
    ["the 34-byte GIF with a 30000×30000 frame", makeGifBomb, 413, "payload_too_large:image_pixels", "30000×30000"],
    [
      "a GIF with 2000 frames",
      () =>
        makeGif({
          screen: { width: 1, height: 1 },
          frames: Array.from({ length: 2000 }, () => ({ width: 1, height: 1 })),
        }),
      413,
      "payload_too_large:image_frames",
      "2,000 frames; the limit is 1,000",
    ],
    [
      "an APNG whose second frame is huge",
      () => makePng({ width: 1, height: 1, animation: [{ width: 20000, height: 20000 }] }),
      413,
      "payload_too_large:image_pixels",
      "20000×20000",
    ],
    [
      "a WebP with an ANMF frame over the limit",
      () => makeAnimatedWebp({ canvas: { width: 1, height: 1 }, frames: [{ width: 16000, height: 16000 }] }),
      413,
      "payload_too_large:image_pixels",
      "16000×16000",
    ],
    [
      "a JPEG with a second SOF over the limit",
      () => insertBeforeEoi(encoded("jpeg", 64, 48), jpegSof(65535, 65535)),
      413,
      "payload_too_large:image_pixels",
      "65535×65535",
    ],
    [
      "a truncated PNG",
      () => encoded("png", 300, 200).subarray(0, 150),
      415,
      "unsupported_media_type:image",
      "truncated",
    ],
    [
      "a PNG whose IHDR CRC is damaged (it segfaults the decoder)",
      () => withDamagedCrc(encoded("png", 30, 20), "IHDR"),
      415,
      "unsupported_media_type:image",
      "CRC mismatch",
    ],
    [
      "a GIF without its trailer",
      () => makeGifBomb().subarray(0, 33),
      415,
      "unsupported_media_type:image",
      "truncated",
    ],
  ])("refuses %s with a 4xx, storing nothing", async (_, make, status, code, text) => {
    const id = await newConversation();
    const response = await uploadRequest(id, make(), "picture.png");
    expect(response.status).toBe(status);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe(code);
    expect(error.message).toContain(text);
    expect((await detail(id)).files).toEqual([]);
  });

  it.each([
    ["PNG", () => encoded("png", 300, 200), "image/png"],
    ["JPEG", () => encoded("jpeg", 300, 200), "image/jpeg"],
    ["WebP", () => encoded("webp", 300, 200), "image/webp"],
    ["GIF", () => makeGif({ screen: { width: 30, height: 20 }, frames: [{ width: 30, height: 20 }] }), "image/gif"],
  ])("stores a normal %s", async (_, make, mime) => {
    const id = await newConversation();
    const response = await uploadRequest(id, make(), "picture");
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ mime, pageCount: null });
    expect((await detail(id)).files).toHaveLength(1);
  });
});

describe("an attached image that cannot be prepared for a vision model", () => {
  it("refuses the message with the image's 4xx before anything is stored, and the server answers the next one", async () => {
    const id = await newConversation("llava:7b");
    // A file stored before uploads were checked: it goes into the table directly.
    const bomb = insertFile(getDb(), {
      conversationId: id,
      origin: "upload",
      filename: "old.gif",
      mime: "image/gif",
      bytes: makeGifBomb(),
      pageCount: null,
      sourceUrl: null,
    });
    const refused = await chat(
      jsonRequest("/api/chat", "POST", { conversationId: id, message: "what is this?", attachmentIds: [bomb.id] }),
    );
    expect(refused.status).toBe(413);
    const { error } = (await refused.json()) as { error: { code: string; message: string } };
    expect(error).toMatchObject({ code: "payload_too_large:image_pixels" });
    expect(error.message).toContain("30000×30000");
    expect((await detail(id)).messages).toEqual([]);
    expect(fake().chatRequests()).toEqual([]);

    const { id: fileId } = (await (await uploadRequest(id, encoded("png", 2048, 1024), "chart.png")).json()) as {
      id: string;
    };
    const answered = await chat(
      jsonRequest("/api/chat", "POST", { conversationId: id, message: "and this?", attachmentIds: [fileId] }),
    );
    expect(answered.status).toBe(200);
    await readEvents(answered);
    expect(fake().chatRequests()[0]?.body.messages.at(-1).images).toHaveLength(1);
  });
});
