import { afterEach, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { PATCH as patchConversation } from "@/app/api/conversations/[id]/route";
import { GET as searchInFiles } from "@/app/api/files/search/route";
import { GET as usage } from "@/app/api/files/usage/route";
import { DELETE as deleteFile, GET as download } from "@/app/api/projects/[id]/files/[fileId]/route";
import { GET as listFiles, POST as upload } from "@/app/api/projects/[id]/files/route";
import { DELETE as deleteProject } from "@/app/api/projects/[id]/route";
import { getDb } from "@/lib/db/client";
import { files } from "@/lib/db/schema";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { ORIGIN, setupAccounts, type TestClient } from "@/tests/support/accounts";
import { expectApiError, params, readEvents, setupAppEnv, waitIdle } from "@/tests/support/app-env";
import { newChat, newProject } from "@/tests/support/owned";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";

/**
 * A project's files (docs/api.md, "Files"; docs/architecture.md, "Projects and memory"): every
 * conversation of the project reads them by `attachment:<id>` and finds them with `search_files`;
 * no conversation outside it, no other project and no other user does.
 */

const fake = setupFakeOllama();
setupAppEnv(fake);

const { admin: alice, user: bob } = setupAccounts({ admin: "alice", user: "bob" });

afterEach(() => {
  delete process.env.MAX_FILES_PER_PROJECT;
  resetConfigForTests();
});

const handbook = makeTextPdf([["Staff handbook, contents."], ["The Sapporo office opens at nine."]]);

function uploadTo(who: TestClient, projectId: string, bytes: Uint8Array, filename: string): Promise<Response> {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(bytes)]), filename);
  const request = new Request(`${ORIGIN}/api/projects/${projectId}/files`, {
    method: "POST",
    headers: { origin: ORIGIN, ...(who.cookie ? { cookie: who.cookie } : {}) },
    body: form,
  });
  return upload(request, params({ id: projectId }));
}

async function projectWithHandbook(who: TestClient): Promise<{ projectId: string; fileId: string }> {
  const projectId = await newProject(who, "Onboarding");
  const response = await uploadTo(who, projectId, handbook, "handbook.pdf");
  expect(response.status).toBe(201);
  const file = (await response.json()) as { id: string; ref: string; pageCount: number };
  expect(file).toMatchObject({ ref: `attachment:${file.id}`, pageCount: 2 });
  return { projectId, fileId: file.id };
}

/** The observation of the one tool call a turn makes, with the model scripted to make it. */
async function toolObservation(
  who: TestClient,
  conversationId: string,
  call: { name: string; arguments: Record<string, unknown> },
): Promise<{ ok: boolean; observation: string }> {
  fake().reset();
  fake().script(
    { when: { hasTools: true }, toolCalls: [{ ...call, id: "c1" }] },
    { when: { hasTools: true }, content: "Done." },
    { when: { hasTools: false, stream: true }, chunks: ["Done."] },
  );
  const response = await chat(who.request("/api/chat", "POST", { conversationId, message: "Look it up." }));
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await waitIdle(fake(), conversationId);
  const result = events.find((e) => e.event === "step" && e.data.type === "tool_result")?.data;
  if (!result) throw new Error(`no tool result: ${JSON.stringify(events.map((e) => e.event))}`);
  return { ok: Boolean(result.ok), observation: String(result.observation) };
}

/** A chat outside any project whose `search_files` reads all its owner's files (the Tools menu's switch). */
async function widenedChat(who: TestClient): Promise<string> {
  const id = await newChat(who);
  const response = await patchConversation(
    who.request(`/api/conversations/${id}`, "PATCH", { settings: { searchAllFiles: true } }),
    params({ id }),
  );
  expect(response.status).toBe(200);
  return id;
}

const storedFileIds = async () => (await (await getDb()).select({ id: files.id }).from(files)).map((row) => row.id);

async function usedBytes(who: TestClient): Promise<number> {
  const response = await usage(who.request("/api/files/usage", "GET"), {});
  return ((await response.json()) as { storage: { usedBytes: number } }).storage.usedBytes;
}

const readAttachment = (who: TestClient, conversationId: string, fileId: string) =>
  toolObservation(who, conversationId, { name: "pdf_to_text", arguments: { url_or_path: `attachment:${fileId}` } });

const searchFiles = (who: TestClient, conversationId: string, query: string) =>
  toolObservation(who, conversationId, { name: "search_files", arguments: { query } });

describe("a project's files through the API", () => {
  it("uploads, lists, downloads and deletes a project's file", async () => {
    const { projectId, fileId } = await projectWithHandbook(alice);
    const listed = await listFiles(alice.request(`/api/projects/${projectId}/files`, "GET"), params({ id: projectId }));
    expect(((await listed.json()) as { files: { id: string; filename: string }[] }).files).toMatchObject([
      { id: fileId, filename: "handbook.pdf" },
    ]);
    const bytes = await download(
      alice.request(`/api/projects/${projectId}/files/${fileId}`, "GET"),
      params({ id: projectId, fileId }),
    );
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get("content-disposition")).toMatch(/^attachment/);
    expect(Buffer.from(await bytes.arrayBuffer()).equals(Buffer.from(handbook))).toBe(true);

    const deleted = await deleteFile(
      alice.request(`/api/projects/${projectId}/files/${fileId}`, "DELETE"),
      params({ id: projectId, fileId }),
    );
    expect(deleted.status).toBe(204);
    await expectApiError(
      await deleteFile(
        alice.request(`/api/projects/${projectId}/files/${fileId}`, "DELETE"),
        params({ id: projectId, fileId }),
      ),
      404,
      "not_found:file",
    );
  });

  it("another user neither lists, uploads to, downloads nor deletes a project's files: 404", async () => {
    const { projectId, fileId } = await projectWithHandbook(alice);
    await expectApiError(
      await listFiles(bob.request(`/api/projects/${projectId}/files`, "GET"), params({ id: projectId })),
      404,
      "not_found:project",
    );
    await expectApiError(await uploadTo(bob, projectId, handbook, "mine.pdf"), 404, "not_found:project");
    const route = `/api/projects/${projectId}/files/${fileId}`;
    await expectApiError(
      await download(bob.request(route, "GET"), params({ id: projectId, fileId })),
      404,
      "not_found:project",
    );
    await expectApiError(
      await deleteFile(bob.request(route, "DELETE"), params({ id: projectId, fileId })),
      404,
      "not_found:project",
    );
    // Bob's own project does not open Alice's file by its id either.
    const bobs = await newProject(bob, "Bob's");
    await expectApiError(
      await download(bob.request(`/api/projects/${bobs}/files/${fileId}`, "GET"), params({ id: bobs, fileId })),
      404,
      "not_found:file",
    );
    expect(await storedFileIds()).toContain(fileId);
  });

  it("counts a project's files in the owner's storage, and refuses a file past MAX_FILES_PER_PROJECT with 409", async () => {
    const [alicesBefore, bobsBefore] = [await usedBytes(alice), await usedBytes(bob)];
    const { projectId } = await projectWithHandbook(alice);
    expect(await usedBytes(alice)).toBe(alicesBefore + handbook.length);
    expect(await usedBytes(bob)).toBe(bobsBefore);
    const used = await usage(alice.request(`/api/files/usage?project=${projectId}`, "GET"), {});
    expect(await used.json()).toMatchObject({ project: { files: 1, limit: 500 } });
    await expectApiError(
      await usage(bob.request(`/api/files/usage?project=${projectId}`, "GET"), {}),
      404,
      "not_found:project",
    );

    process.env.MAX_FILES_PER_PROJECT = "1";
    resetConfigForTests();
    const before = await storedFileIds();
    await expectApiError(await uploadTo(alice, projectId, handbook, "again.pdf"), 409, "conflict:project_files");
    expect(await storedFileIds()).toEqual(before);
  });

  it("deleting the project deletes its files", async () => {
    const { projectId, fileId } = await projectWithHandbook(alice);
    const response = await deleteProject(
      alice.request(`/api/projects/${projectId}`, "DELETE"),
      params({ id: projectId }),
    );
    expect(response.status).toBe(204);
    expect(await storedFileIds()).not.toContain(fileId);
  });
});

describe("which conversations read a project's files", () => {
  it("every conversation of the project reads the file by attachment:<id> and finds it with search_files", async () => {
    const { projectId, fileId } = await projectWithHandbook(alice);
    const conversationId = await newChat(alice, { projectId });
    const read = await readAttachment(alice, conversationId, fileId);
    expect(read.ok).toBe(true);
    expect(read.observation).toContain("The Sapporo office opens at nine.");
    const found = await searchFiles(alice, conversationId, "Sapporo office");
    expect(found.ok).toBe(true);
    expect(found.observation).toContain(`handbook.pdf (attachment:${fileId}, page 2)`);
  });

  it("a conversation outside the project, or in another of the owner's projects, reads nothing of it", async () => {
    const { fileId } = await projectWithHandbook(alice);
    const outside = await newChat(alice);
    expect((await readAttachment(alice, outside, fileId)).observation).toContain(`Attachment not found: ${fileId}`);
    const other = await newProject(alice, "Other");
    const elsewhere = await newChat(alice, { projectId: other });
    expect((await readAttachment(alice, elsewhere, fileId)).observation).toContain(`Attachment not found: ${fileId}`);
  });

  it("a conversation moved out of the project stops reading its files", async () => {
    const { projectId, fileId } = await projectWithHandbook(alice);
    const conversationId = await newChat(alice, { projectId });
    expect((await readAttachment(alice, conversationId, fileId)).ok).toBe(true);
    const moved = await patchConversation(
      alice.request(`/api/conversations/${conversationId}`, "PATCH", { projectId: null }),
      params({ id: conversationId }),
    );
    expect(moved.status).toBe(200);
    expect((await readAttachment(alice, conversationId, fileId)).observation).toContain(
      `Attachment not found: ${fileId}`,
    );
  });

  it("another user's chat that widens its search to all its files neither finds nor reads the project's file", async () => {
    const { fileId } = await projectWithHandbook(alice);
    const bobs = await widenedChat(bob);
    expect((await readAttachment(bob, bobs, fileId)).observation).toContain(`Attachment not found: ${fileId}`);
    // Bob's own file makes search_files offered; Alice's passage is not among its hits.
    const bobsProject = await newProject(bob, "Bob's");
    expect((await uploadTo(bob, bobsProject, makeTextPdf([["Sapporo weather notes."]]), "notes.pdf")).status).toBe(201);
    const found = await searchFiles(bob, bobs, "Sapporo");
    expect(found.observation).toContain("notes.pdf");
    expect(found.observation).not.toContain("handbook.pdf");
  });

  it("the owner's widened search finds the project's file from a chat outside any project", async () => {
    const projectId = await newProject(alice, "Travel");
    const response = await uploadTo(alice, projectId, makeTextPdf([["Hakodate ferry timetable."]]), "ferry.pdf");
    const file = (await response.json()) as { id: string };
    const wide = await widenedChat(alice);
    const found = await searchFiles(alice, wide, "Hakodate ferry");
    expect(found.observation).toContain(`ferry.pdf (attachment:${file.id}, page 1)`);
  });
});

interface FileHit {
  fileId: string;
  filename: string;
  conversationId: string | null;
  projectId: string | null;
  page: number | null;
  text: string;
}

async function sidebarSearch(who: TestClient, q: string): Promise<FileHit[]> {
  const response = await searchInFiles(who.request(`/api/files/search?q=${encodeURIComponent(q)}`, "GET"), {});
  expect(response.status).toBe(200);
  return ((await response.json()) as { hits: FileHit[] }).hits;
}

describe("the sidebar's search inside files", () => {
  it("finds words in the owner's project and conversation files, with the file's holder and page", async () => {
    const projectId = await newProject(alice, "Field notes");
    const uploaded = await uploadTo(
      alice,
      projectId,
      makeTextPdf([["Intro."], ["The Kushiro marsh cranes."]]),
      "cranes.pdf",
    );
    const file = (await uploaded.json()) as { id: string };
    const hits = await sidebarSearch(alice, "kushiro marsh");
    expect(hits).toMatchObject([{ fileId: file.id, filename: "cranes.pdf", projectId, conversationId: null, page: 2 }]);
    expect(hits[0]?.text).toContain("The Kushiro marsh cranes.");
    const hit = hits[0] as FileHit & { match: { start: number; length: number }; snippet: { text: string } };
    expect(hit.text.slice(hit.match.start, hit.match.start + hit.match.length).toLowerCase()).toBe("kushiro");
    expect(hit.snippet.text).toContain("Kushiro marsh");
  });

  it("marks a phrase's first word where the passage has punctuation between its words", async () => {
    const projectId = await newProject(alice, "Birds");
    await uploadTo(alice, projectId, makeTextPdf([["Seen at dusk: a red, fox-like kite."]]), "kite.pdf");
    const [hit] = (await sidebarSearch(alice, '"red fox"')) as (FileHit & {
      match: { start: number; length: number } | null;
      snippet: { text: string } | null;
    })[];
    expect(hit?.match && hit.text.slice(hit.match.start, hit.match.start + hit.match.length)).toBe("red");
    expect(hit?.snippet?.text).toContain("red, fox-like");
  });

  it("never finds another user's file", async () => {
    const projectId = await newProject(alice, "Secrets");
    await uploadTo(alice, projectId, makeTextPdf([["The Wakkanai vault code."]]), "vault.pdf");
    expect(await sidebarSearch(alice, "Wakkanai vault")).toHaveLength(1);
    expect(await sidebarSearch(bob, "Wakkanai vault")).toEqual([]);
  });

  it("refuses an empty query", async () => {
    await expectApiError(
      await searchInFiles(alice.request("/api/files/search?q=%20", "GET"), {}),
      400,
      "bad_request:validation",
    );
  });
});
