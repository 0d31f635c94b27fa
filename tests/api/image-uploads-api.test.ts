import { describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as upload } from "@/app/api/conversations/[id]/files/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import { getDb } from "@/lib/db/client";
import { insertFile } from "@/lib/db/files";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { jsonRequest, newConversation, params, readEvents, setupAppEnv } from "@/tests/support/app-env";
import { CRAFTED_IMAGES, encodedImage, makeGif, makeGifBomb } from "@/tests/support/image-fixtures";

const fake = setupFakeOllama();
setupAppEnv(fake);

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

describe("image uploads are checked frame by frame before anything is stored", () => {
  it.each(CRAFTED_IMAGES)("refuses $name with a 4xx, storing nothing", async ({ make, status, code, says }) => {
    const id = await newConversation();
    const response = await uploadRequest(id, make(), "picture.png");
    expect(response.status).toBe(status);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe(code);
    expect(error.message).toContain(says);
    expect((await detail(id)).files).toEqual([]);
  });

  it.each([
    ["PNG", () => encodedImage("png", 300, 200), "image/png"],
    ["JPEG", () => encodedImage("jpeg", 300, 200), "image/jpeg"],
    ["WebP", () => encodedImage("webp", 300, 200), "image/webp"],
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
    const bomb = await insertFile(await getDb(), {
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

    const { id: fileId } = (await (await uploadRequest(id, encodedImage("png", 2048, 1024), "chart.png")).json()) as {
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
