import { afterAll, describe, expect, it } from "vitest";
import { GET as preview } from "@/app/api/conversations/[id]/files/[fileId]/text/route";
import { POST as upload } from "@/app/api/conversations/[id]/files/route";
import { POST as create } from "@/app/api/conversations/route";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { setupAccounts, type TestClient } from "@/tests/support/accounts";
import { params, setupAppEnv } from "@/tests/support/app-env";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";
import { realDocx } from "@/tests/support/zip-fixtures";

const fake = setupFakeOllama();
setupAppEnv(fake);

const { admin: alice, user: bob } = setupAccounts({ admin: "alice-preview", user: "bob-preview" });
afterAll(() => {
  delete process.env.FILE_PREVIEW_CHARS;
  resetConfigForTests();
});

async function conversationOf(user: TestClient): Promise<string> {
  const response = await create(user.request("/api/conversations", "POST", {}));
  return ((await response.json()) as { conversation: { id: string } }).conversation.id;
}

async function uploadAs(user: TestClient, id: string, bytes: Uint8Array, filename: string): Promise<string> {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(bytes)]), filename);
  const request = new Request(`http://127.0.0.1/api/conversations/${id}/files`, {
    method: "POST",
    body: form,
    headers: { cookie: user.cookie, origin: "http://127.0.0.1" },
  });
  const response = await upload(request, params({ id }));
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

function previewAs(user: TestClient, id: string, fileId: string): Promise<Response> {
  return preview(user.request(`/api/conversations/${id}/files/${fileId}/text`, "GET"), params({ id, fileId }));
}

describe("GET /api/conversations/:id/files/:fileId/text", () => {
  it("previews a DOCX and a CSV as the model reads them", async () => {
    const id = await conversationOf(alice);
    const docx = await uploadAs(alice, id, realDocx(), "report.docx");
    const body = (await (await previewAs(alice, id, docx)).json()) as { text: string; truncated: boolean };
    expect(body.text).toContain("四半期報告 Quarterly report");
    expect(body.truncated).toBe(false);
    const csv = await uploadAs(alice, id, Buffer.from("city,sales\n東京,120\n"), "sales.csv");
    expect(await (await previewAs(alice, id, csv)).json()).toEqual({
      text: "| city | sales |\n| --- | --- |\n| 東京 | 120 |\n",
      truncated: false,
      chars: 44,
    });
  });

  it("shows at most FILE_PREVIEW_CHARS characters and says how many there are", async () => {
    process.env.FILE_PREVIEW_CHARS = "10";
    resetConfigForTests();
    try {
      const id = await conversationOf(alice);
      const file = await uploadAs(alice, id, Buffer.from("0123456789abcdef"), "long.txt");
      expect(await (await previewAs(alice, id, file)).json()).toEqual({
        text: "0123456789",
        truncated: true,
        chars: 16,
      });
    } finally {
      delete process.env.FILE_PREVIEW_CHARS;
      resetConfigForTests();
    }
  });

  it("has no preview for a PDF (415), and 404s for an unknown file or another user's conversation", async () => {
    const id = await conversationOf(alice);
    const pdf = await uploadAs(alice, id, makeTextPdf([["x"]]), "a.pdf");
    expect((await previewAs(alice, id, pdf)).status).toBe(415);
    expect((await previewAs(alice, id, "nope")).status).toBe(404);
    const text = await uploadAs(alice, id, Buffer.from("private notes"), "notes.txt");
    expect((await previewAs(bob, id, text)).status).toBe(404);
    const bobs = await conversationOf(bob);
    expect((await previewAs(bob, bobs, text)).status).toBe(404);
  });
});
