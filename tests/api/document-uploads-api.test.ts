import { deflateRawSync } from "node:zlib";
import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as upload } from "@/app/api/conversations/[id]/files/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  jsonRequest,
  newConversation,
  type ParsedEvent,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";
import { docxWith, makeZip, realDocx } from "@/tests/support/zip-fixtures";

const fake = setupFakeOllama();
setupAppEnv(fake);

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

function uploadRequest(id: string, bytes: Uint8Array, filename: string): Promise<Response> {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(bytes)]), filename);
  return upload(
    new Request(`http://127.0.0.1/api/conversations/${id}/files`, { method: "POST", body: form }),
    params({ id }),
  );
}

async function refusal(response: Response, status: number) {
  expect(response.status).toBe(status);
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

async function storedFiles(id: string): Promise<unknown[]> {
  return ((await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as { files: unknown[] }).files;
}

async function withEnv<T>(env: Record<string, string>, body: () => Promise<T>): Promise<T> {
  Object.assign(process.env, env);
  resetConfigForTests();
  try {
    return await body();
  } finally {
    for (const key of Object.keys(env)) delete process.env[key];
    resetConfigForTests();
  }
}

describe("uploads of documents and text files", () => {
  it.each([
    ["notes.txt", "メモ: 会議は三時から。", "text/plain"],
    ["README.md", "# 見出し\n\n- 項目", "text/markdown"],
    ["sales.csv", "city,sales\n東京,120\n", "text/csv"],
    ["data.json", '{"名前": "東京"}', "application/json"],
    ["lines.json", '{"a":1}\n{"a":2}\n', "application/json"],
    ["page.htm", "<html><body><p>本文</p></body></html>", "text/html"],
  ])("accepts %s as %s", async (filename, content, mime) => {
    const id = await newConversation();
    const response = await uploadRequest(id, Buffer.from(content), filename);
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ filename, mime, pageCount: null });
  });

  it("accepts an undeclared Shift_JIS .txt as text", async () => {
    const id = await newConversation();
    const sjis = iconv.encode("或日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。", "Shift_JIS");
    const response = await uploadRequest(id, sjis, "rashomon.txt");
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ filename: "rashomon.txt", mime: "text/plain" });
  });

  it("accepts a DOCX by its content, whatever its name", async () => {
    const id = await newConversation();
    const response = await uploadRequest(id, realDocx(), "報告書.bin");
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ filename: "報告書.docx", mime: DOCX, pageCount: null });
  });

  it("refuses a ZIP that is not a DOCX with 415 and stores nothing", async () => {
    const id = await newConversation();
    const zip = makeZip([{ name: "photo.txt", data: Buffer.from("hello") }]);
    for (const name of ["archive.docx", "archive.zip", "archive.txt"]) {
      const error = await refusal(await uploadRequest(id, zip, name), 415);
      expect(error).toMatchObject({ code: "unsupported_media_type:zip" });
      expect(error.message).toContain("not a Word document");
    }
    expect(await storedFiles(id)).toEqual([]);
  });

  it("refuses a zip-bomb DOCX with 413 before converting it, and stores nothing", async () => {
    await withEnv({ DOCX_MAX_INFLATED_MB: "2" }, async () => {
      const id = await newConversation();
      const bomb = docxWith(Buffer.alloc(32 * 1024 * 1024, 0x41), 1000);
      expect(bomb.length).toBeLessThan(100_000);
      const error = await refusal(await uploadRequest(id, bomb, "bomb.docx"), 413);
      expect(error).toMatchObject({ code: "payload_too_large:docx" });
      expect(error.message).toContain("unpacks to more than the 2 MB limit");
      expect(await storedFiles(id)).toEqual([]);
    });
  });

  it("refuses binary data named as a text file with 415 and a clear message", async () => {
    const id = await newConversation();
    const gzip = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), deflateRawSync(Buffer.from("x".repeat(5000)))]);
    const random = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
    for (const [bytes, name] of [
      [gzip, "notes.txt"],
      [random, "data.csv"],
      [Buffer.from("ok\u0000ok"), "a.md"],
    ] as const) {
      const error = await refusal(await uploadRequest(id, bytes, name), 415);
      expect(error.code).toBe("unsupported_media_type:binary_text");
      expect(error.message).toMatch(/named \.(txt|csv|md) but holds binary data, not text/);
    }
    expect(await storedFiles(id)).toEqual([]);
  });

  it("refuses text under a name of no accepted type, and a 0-byte file, saying what is accepted", async () => {
    const id = await newConversation();
    const error = await refusal(await uploadRequest(id, Buffer.from("print(1)"), "script.py"), 415);
    expect(error).toMatchObject({ code: "unsupported_media_type:file" });
    expect(error.message).toContain("Word documents (DOCX) and text files (TXT, MD, CSV, JSON, HTML)");
    expect((await refusal(await uploadRequest(id, new Uint8Array(), "empty.txt"), 400)).code).toBe(
      "bad_request:empty_file",
    );
  });

  it("refuses a text file over MAX_TEXT_FILE_MB with 413, naming the limit", async () => {
    await withEnv({ MAX_TEXT_FILE_MB: "1" }, async () => {
      const id = await newConversation();
      const line = `${"a,".repeat(600_000)}a`;
      const error = await refusal(await uploadRequest(id, Buffer.from(line), "wide.csv"), 413);
      expect(error.code).toBe("payload_too_large:text_file");
      expect(error.message).toBe("A text file is larger than the 1 MB limit.");
      expect(await storedFiles(id)).toEqual([]);
    });
  });
});

async function runChat(body: { conversationId: string } & Record<string, unknown>): Promise<ParsedEvent[]> {
  const response = await chat(jsonRequest("/api/chat", "POST", body));
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await waitIdle(fake(), body.conversationId);
  return events;
}

describe("a chat reading attached documents", () => {
  it("reads a DOCX and a CSV attachment through the model's tool calls", async () => {
    const id = await newConversation();
    const docx = (await (await uploadRequest(id, realDocx(), "report.docx")).json()) as { id: string };
    const csv = (await (
      await uploadRequest(id, Buffer.from("city,sales\n東京,120\n大阪,95\n"), "sales.csv")
    ).json()) as {
      id: string;
    };
    fake().script(
      {
        when: { hasTools: true },
        toolCalls: [
          { name: "pdf_to_text", arguments: { url_or_path: `attachment:${docx.id}` }, id: "call_docx" },
          { name: "scrape_url", arguments: { url: `attachment:${csv.id}` }, id: "call_csv" },
        ],
      },
      { when: { hasTools: true }, content: "Tokyo sold 120." },
      { when: { hasTools: false, stream: true }, chunks: ["Tokyo ", "sold 120."] },
    );
    const events = await runChat({
      conversationId: id,
      message: "What do the files say?",
      attachmentIds: [docx.id, csv.id],
    });
    const results = events.filter((e) => e.event === "step" && e.data.type === "tool_result").map((e) => e.data);
    const docxResult = results.find((r) => r.callId === "call_docx");
    expect(docxResult).toMatchObject({ tool: "pdf_to_text", ok: true });
    expect(String(docxResult?.observation)).toContain("四半期報告 Quarterly report");
    expect(String(docxResult?.observation)).toContain("羅生門の下で雨やみを待っていた。");
    expect(results.find((r) => r.callId === "call_csv")).toMatchObject({
      tool: "scrape_url",
      ok: true,
      observation: "| city | sales |\n| --- | --- |\n| 東京 | 120 |\n| 大阪 | 95 |\n",
    });
    const system = String(fake().chatRequests()[0]?.body.messages[0]?.content);
    expect(system).toContain(`attachment:${docx.id} — report.docx`);
    expect(system).toContain(`attachment:${csv.id} — sales.csv`);
  });
});
