import { describe, expect, it } from "vitest";
import { GET as download } from "@/app/api/conversations/[id]/files/[fileId]/route";
import { POST as upload } from "@/app/api/conversations/[id]/files/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { expectApiError, jsonRequest, newConversation, params, readEvents, setupAppEnv } from "@/tests/support/app-env";
import { makePng } from "@/tests/support/image-fixtures";
import { makeObjectStreamBombPdf } from "@/tests/support/pdf-bombs";
import { makeEncryptedPdf, makeTextPdf } from "@/tests/support/pdf-fixtures";

const fake = setupFakeOllama();
setupAppEnv(fake);

const PNG = makePng({ width: 1, height: 1 });

function uploadRequest(id: string, bytes: Uint8Array, filename: string, field = "file"): Promise<Response> {
  const form = new FormData();
  form.set(field, new Blob([new Uint8Array(bytes)]), filename);
  return upload(
    new Request(`http://127.0.0.1/api/conversations/${id}/files`, { method: "POST", body: form }),
    params({ id }),
  );
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

describe("uploads", () => {
  it("stores a PDF with its page count and answers with an attachment reference", async () => {
    const id = await newConversation();
    const response = await uploadRequest(id, makeTextPdf([["one"], ["two"], ["three"]]), "Report 2024.pdf");
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      filename: "Report 2024.pdf",
      mime: "application/pdf",
      pageCount: 3,
      ref: `attachment:${body.id}`,
    });
    const detail = (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as { files: unknown[] };
    expect(detail.files).toEqual([expect.objectContaining({ id: body.id, origin: "upload", pageCount: 3 })]);
  });

  it("recognises files by content, not by name", async () => {
    const id = await newConversation();
    const pdfAsPng = (await (await uploadRequest(id, makeTextPdf([["x"]]), "photo.png")).json()) as Record<
      string,
      unknown
    >;
    expect(pdfAsPng).toMatchObject({ mime: "application/pdf", filename: "photo.pdf" });
    const png = (await (await uploadRequest(id, PNG, "scan.pdf")).json()) as Record<string, unknown>;
    expect(png).toMatchObject({ mime: "image/png", filename: "scan.png", pageCount: null });
    const text = await uploadRequest(id, Buffer.from("just text pretending"), "notes.pdf");
    expect(text.status).toBe(415);
    expect((await errorOf(text)).message).toContain("Only PDF files, images");
  });

  it.each([
    ["../../etc/passwd.pdf", "passwd.pdf"],
    ["..\\..\\windows\\evil.pdf", "evil.pdf"],
    ['<img src=x onerror="alert(1)">.pdf', "_img src=x onerror=_alert(1)__.pdf"],
    ["report\u202Efdp.exe", "report_fdp.pdf"],
    [".hidden.pdf", "hidden.pdf"],
    ["   ", "file.pdf"],
  ])("makes the filename %j safe", async (name, safe) => {
    const id = await newConversation();
    const body = (await (await uploadRequest(id, makeTextPdf([["x"]]), name)).json()) as { filename: string };
    expect(body.filename).toBe(safe);
  });

  it("refuses a file over MAX_FETCH_MB with 413", async () => {
    process.env.MAX_FETCH_MB = "1";
    resetConfigForTests();
    try {
      const id = await newConversation();
      const big = Buffer.concat([Buffer.from(makeTextPdf([["x"]])), Buffer.alloc(1_100_000, 0x20)]);
      const response = await uploadRequest(id, big, "big.pdf");
      expect(response.status).toBe(413);
      expect((await errorOf(response)).message).toContain("1 MB limit");
    } finally {
      delete process.env.MAX_FETCH_MB;
      resetConfigForTests();
    }
  });

  it("refuses with 413 a PDF whose page count needs more than the PDF limits allow, and stores nothing", async () => {
    process.env.PDF_MAX_STREAM_MB = "1";
    resetConfigForTests();
    try {
      const id = await newConversation();
      const response = await uploadRequest(id, makeObjectStreamBombPdf(64), "bomb.pdf");
      expect(response.status).toBe(413);
      expect((await errorOf(response)).message).toBe(
        "Reading this PDF was stopped: a stream in it inflates to more than 1 MB; the file may be damaged or built to exhaust the reader. It cannot be attached.",
      );
      const detail = (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as { files: unknown[] };
      expect(detail.files).toEqual([]);
    } finally {
      delete process.env.PDF_MAX_STREAM_MB;
      resetConfigForTests();
    }
  });

  it("refuses an encrypted PDF with 415, an empty file with 400, a missing field with 400", async () => {
    const id = await newConversation();
    const encrypted = await uploadRequest(id, makeEncryptedPdf(), "locked.pdf");
    expect(encrypted.status).toBe(415);
    expect((await errorOf(encrypted)).message).toContain("encrypted");
    await expectApiError(await uploadRequest(id, new Uint8Array(), "empty.pdf"), 400, "bad_request:empty_file");
    await expectApiError(await uploadRequest(id, PNG, "x.png", "other"), 400, "bad_request:validation");
  });

  it("refuses a body that is not multipart with 415, and an unknown conversation with 404", async () => {
    const id = await newConversation();
    const json = await upload(jsonRequest(`/api/conversations/${id}/files`, "POST", { file: "x" }), params({ id }));
    expect(json.status).toBe(415);
    expect((await uploadRequest("nope", PNG, "x.png")).status).toBe(404);
  });
});

describe("downloads", () => {
  it("sends the bytes as an attachment with a safe Content-Disposition and nosniff", async () => {
    const id = await newConversation();
    const pdf = makeTextPdf([["hello"]]);
    const { id: fileId } = (await (await uploadRequest(id, pdf, 'Résumé "final".pdf')).json()) as { id: string };
    const response = await download(jsonRequest("", "GET"), params({ id, fileId }));
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(pdf))).toBe(true);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="R_sum_ _final_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20_final_.pdf`,
    );
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("never serves one conversation's file through another", async () => {
    const mine = await newConversation();
    const theirs = await newConversation();
    const { id: fileId } = (await (await uploadRequest(mine, PNG, "a.png")).json()) as { id: string };
    expect((await download(jsonRequest("", "GET"), params({ id: theirs, fileId }))).status).toBe(404);
    expect((await download(jsonRequest("", "GET"), params({ id: mine, fileId }))).status).toBe(200);
  });
});

describe("attachments sent with a message", () => {
  async function pngBytes(): Promise<Uint8Array> {
    const { createCanvas } = await import("@napi-rs/canvas");
    const canvas = createCanvas(2048, 1024);
    canvas.getContext("2d").fillRect(0, 0, 10, 10);
    return new Uint8Array(await canvas.encode("png"));
  }

  it("records them on the user message and shows a vision model the images, resized", async () => {
    const { POST: chat } = await import("@/app/api/chat/route");
    const id = await newConversation("llava:7b");
    const { id: fileId } = (await (await uploadRequest(id, await pngBytes(), "chart.png")).json()) as { id: string };
    const response = await chat(
      jsonRequest("/api/chat", "POST", { conversationId: id, message: "what is this?", attachmentIds: [fileId] }),
    );
    expect(response.status).toBe(200);
    await readEvents(response);
    const requests = fake().chatRequests();
    const loopUser = requests[0]?.body.messages.at(-1);
    expect(loopUser.images).toHaveLength(1);
    const jpeg = Buffer.from(loopUser.images[0], "base64");
    expect(jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    const { imageSize } = await import("@/lib/files/image-resize");
    expect(imageSize(jpeg)).toEqual({ width: 1024, height: 512 });
    const detail = (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as {
      messages: { role: string; attachmentIds: string[] | null }[];
    };
    expect(detail.messages[0]?.attachmentIds).toEqual([fileId]);
  });

  it("an id from elsewhere is a 400", async () => {
    const { POST: chat } = await import("@/app/api/chat/route");
    const id = await newConversation();
    const other = await newConversation();
    const { id: fileId } = (await (await uploadRequest(id, await pngBytes(), "chart.png")).json()) as { id: string };
    const refused = await chat(
      jsonRequest("/api/chat", "POST", { conversationId: other, message: "hi", attachmentIds: [fileId] }),
    );
    expect(await expectApiError(refused, 400, "bad_request:attachment")).toContain(fileId);
  });
});
