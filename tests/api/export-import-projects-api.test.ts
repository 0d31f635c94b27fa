import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as exportOne } from "@/app/api/conversations/[id]/export/route";
import { GET as getConversation } from "@/app/api/conversations/[id]/route";
import { GET as exportAll } from "@/app/api/conversations/export/route";
import { POST as importFile } from "@/app/api/conversations/import/route";
import { POST as createConversation } from "@/app/api/conversations/route";
import { POST as createPreset } from "@/app/api/presets/route";
import { PATCH as patchProject } from "@/app/api/projects/[id]/route";
import { GET as listProjects } from "@/app/api/projects/route";
import { getDb } from "@/lib/db/client";
import { unindexedInScope } from "@/lib/db/library";
import { insertMessage } from "@/lib/db/messages";
import { appendSourcePart } from "@/lib/db/run-sources";
import { createRun, finishRun } from "@/lib/db/runs";
import { conversations, files, projects, users } from "@/lib/db/schema";
import { resetConfigForTests } from "@/lib/env-config";
import type { ConversationExport, ProjectExport } from "@/lib/export/format";
import type { ImportReport } from "@/lib/export/import-conversations";
import { storeUpload } from "@/lib/files/uploads";
import { MAX_ENTRIES, readEntry, zipEntries } from "@/lib/files/zip-entries";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { setupAccounts, type TestClient } from "@/tests/support/accounts";
import { params, setupAppEnv } from "@/tests/support/app-env";
import { newProject } from "@/tests/support/owned";
import { makeZip } from "@/tests/support/zip-fixtures";

/** A project with instructions and a model, so an export has them to carry. */
const newProjectWith = (who: TestClient, name: string) =>
  newProject(who, name, { instructions: `Work on ${name}.`, model: "qwen3:8b" });

/** Projects in the conversation export (docs/api.md, "Export and import"): carried once, imported once. */

const fake = setupFakeOllama();
setupAppEnv(fake);

const { admin: alice, user: bob } = setupAccounts({ admin: "alice", user: "bob" });

const ownerIdOf = async (username: string) => {
  const [user] = await (await getDb()).select({ id: users.id }).from(users).where(eq(users.username, username));
  if (!user) throw new Error(`no user ${username}`);
  return user.id;
};

async function projectFile(who: string, projectId: string, filename: string, text: string): Promise<string> {
  const stored = await storeUpload(await getDb(), {
    holder: { projectId },
    ownerId: await ownerIdOf(who),
    filename,
    bytes: Buffer.from(text),
    maxBytes: 10 * 1024 * 1024,
    imageLimits: { maxPixels: 1_000_000, maxFrames: 10 },
  });
  if ("refused" in stored) throw new Error("the seeded file was refused");
  return stored.id;
}

/** A conversation in the project whose answer cites the project's file as its source 1, by `attachment:<id>`. */
async function chatIn(who: TestClient, projectId: string, title: string, fileId: string): Promise<string> {
  const response = await createConversation(who.request("/api/conversations", "POST", { title, projectId }));
  expect(response.status).toBe(201);
  const { id } = ((await response.json()) as { conversation: { id: string } }).conversation;
  const db = await getDb();
  const question = await insertMessage(db, { conversationId: id, role: "user", content: `What does ${title} say?` });
  const run = await createRun(db, { conversationId: id, questionId: question.id, mode: "native", model: "qwen3:8b" });
  await appendSourcePart(db, {
    runId: run.id,
    source: { n: 1, url: `attachment:${fileId}`, title: "notes" },
    text: "The notes say it.",
    at: 1,
  });
  await finishRun(db, {
    runId: run.id,
    status: "complete",
    iterations: 1,
    inputTokens: 1,
    outputTokens: 1,
    answer: `It says it [1] (attachment:${fileId}).`,
  });
  return id;
}

async function exportJson(who: TestClient, id: string, query = "?format=json&files=1"): Promise<ConversationExport> {
  const response = await exportOne(who.request(`/api/conversations/${id}/export${query}`, "GET"), params({ id }));
  expect(response.status).toBe(200);
  return (await response.json()) as ConversationExport;
}

async function importAs(who: TestClient, body: Buffer | object): Promise<ImportReport> {
  const text = Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body);
  const response = await importFile(
    new Request("http://127.0.0.1/api/conversations/import", {
      method: "POST",
      headers: { origin: "http://127.0.0.1", cookie: who.cookie },
      body: text,
    }),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as ImportReport;
}

async function archiveOf(who: TestClient): Promise<Buffer> {
  const response = await exportAll(who.request("/api/conversations/export?files=1", "GET"));
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** The archive's JSON entries, parsed, by name. */
async function jsonEntries(archive: Buffer): Promise<Map<string, ConversationExport | ProjectExport>> {
  const parsed = new Map<string, ConversationExport | ProjectExport>();
  for (const entry of zipEntries(archive, MAX_ENTRIES) ?? []) {
    if (!entry.name.endsWith(".json")) continue;
    const content = await readEntry(archive, entry, 100 * 1024 * 1024);
    parsed.set(entry.name, JSON.parse(content?.toString("utf8") ?? "null"));
  }
  return parsed;
}

const projectOf = async (conversationId: string) => {
  const [row] = await (await getDb())
    .select({ projectId: conversations.projectId })
    .from(conversations)
    .where(eq(conversations.id, conversationId));
  return row?.projectId ?? null;
};

const filesOfProject = async (projectId: string) =>
  (await getDb()).select({ id: files.id, filename: files.filename }).from(files).where(eq(files.projectId, projectId));

const projectNames = async (who: TestClient) =>
  (
    (await (await listProjects(who.request("/api/projects", "GET"))).json()) as { projects: { name: string }[] }
  ).projects
    .map((project) => project.name)
    .sort();

const counts = async () => {
  const db = await getDb();
  return {
    projects: (await db.select().from(projects)).length,
    conversations: (await db.select().from(conversations)).length,
    files: (await db.select().from(files)).length,
  };
};

/** The document with every id replaced by its position among the ids, and no export time. */
function withoutIds(document: ConversationExport): unknown {
  const ids = [
    document.conversation.id,
    document.project?.id ?? "",
    ...document.messages.map((message) => message.id),
    ...document.runs.map((run) => run.id),
    ...document.files.map((file) => file.id),
    ...document.projectFiles.map((file) => file.id),
  ];
  let text = JSON.stringify({ ...document, exportedAt: 0 });
  ids.forEach((id, index) => {
    text = text.replaceAll(id, `#${index}`);
  });
  return JSON.parse(text);
}

describe("export and import of projects", () => {
  it("round trip: a conversation in a project brings its project and the project's files into a new project, under new ids", async () => {
    const projectId = await newProjectWith(alice, "Thesis");
    await patchProject(
      alice.request(`/api/projects/${projectId}`, "PATCH", { collapsed: true }),
      params({ id: projectId }),
    );
    const fileId = await projectFile("alice", projectId, "notes.txt", "Chapter one: the notes say it.");
    const conversationId = await chatIn(alice, projectId, "Chapter one", fileId);

    const original = await exportJson(alice, conversationId);
    expect(original.version).toBe(3);
    expect(original.project).toEqual({
      id: projectId,
      name: "Thesis",
      instructions: "Work on Thesis.",
      model: "qwen3:8b",
      preset: null,
      collapsed: true,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(
      original.projectFiles.map((file) => [file.id, file.filename, Buffer.from(file.bytes ?? "", "base64").toString()]),
    ).toEqual([[fileId, "notes.txt", "Chapter one: the notes say it."]]);

    const report = await importAs(alice, original);
    expect(report.skipped).toEqual([]);
    expect(report.projects).toEqual([{ name: "Thesis", id: expect.any(String) }]);
    const newProjectId = report.projects[0]?.id ?? "";
    expect(newProjectId).not.toBe(projectId);
    const newId = report.imported[0]?.id ?? "";
    expect(await projectOf(newId)).toBe(newProjectId);
    const detail = (await (await getConversation(alice.request("", "GET"), params({ id: newId }))).json()) as {
      conversation: { projectId: string | null };
    };
    expect(detail.conversation.projectId).toBe(newProjectId);
    // An import makes a new project, named as exported: the original stays as it was.
    expect((await projectNames(alice)).filter((name) => name === "Thesis")).toHaveLength(2);
    expect(await filesOfProject(projectId)).toEqual([{ id: fileId, filename: "notes.txt" }]);

    const copy = await exportJson(alice, newId);
    expect(withoutIds(copy)).toEqual(withoutIds(original));
    const [newFile] = await filesOfProject(newProjectId);
    expect(copy.projectFiles.map((file) => file.id)).toEqual([newFile?.id]);
    // What cites the project's file names the imported copy.
    expect(copy.runs[0]?.sources[0]?.url).toBe(`attachment:${newFile?.id}`);
    expect(copy.messages.find((message) => message.role === "assistant")?.content).toContain(
      `attachment:${newFile?.id}`,
    );
    // Not indexed when stored: the conversation's first library search (or the next start) indexes it.
    expect(await unindexedInScope(await getDb(), { conversationId: newId })).toContain(newFile?.id);
  });

  it("the archive holds a project once, and two conversations of it import into one new project with its files once", async () => {
    const projectId = await newProjectWith(alice, "Shared project");
    const fileId = await projectFile("alice", projectId, "plan.txt", "The plan is to share.");
    const first = await chatIn(alice, projectId, "First of two", fileId);
    await chatIn(alice, projectId, "Second of two", fileId);
    await projectFile("alice", await newProjectWith(alice, "Empty but for a file"), "lone.txt", "Alone.");

    const archive = await archiveOf(alice);
    const entries = await jsonEntries(archive);
    const projectEntries = [...entries].filter(([, document]) => document.format === "ollama-web.project");
    const sharedEntries = projectEntries.filter(([, document]) => document.project?.id === projectId);
    expect(sharedEntries.map(([name]) => name)).toEqual([
      expect.stringMatching(/^projects\/\d{4} Shared project\.json$/),
    ]);
    const sharedDocument = sharedEntries[0]?.[1] as ProjectExport | undefined;
    expect(sharedDocument?.files.map((file) => file.id)).toEqual([fileId]);
    const conversationsOfIt = [...entries.values()].filter(
      (document): document is ConversationExport =>
        document.format !== "ollama-web.project" && document.project?.id === projectId,
    );
    expect(conversationsOfIt.map((document) => document.conversation.title).sort()).toEqual([
      "First of two",
      "Second of two",
    ]);
    // The project's files are in its own entry, not again in each conversation's.
    expect(conversationsOfIt.every((document) => document.projectFiles.length === 0)).toBe(true);
    // A project without conversations is exported too.
    expect(projectEntries.some(([, document]) => document.project?.name === "Empty but for a file")).toBe(true);

    const bobBefore = await projectNames(bob);
    const report = await importAs(bob, archive);
    expect(report.skipped).toEqual([]);
    // Every one of Alice's projects once, as Bob's.
    expect(report.projects.map((project) => project.name).sort()).toEqual(await projectNames(alice));
    expect(await projectNames(bob)).toEqual([...bobBefore, ...(await projectNames(alice))].sort());
    const imported = report.imported.filter((entry) => entry.title.endsWith(" of two"));
    expect(imported).toHaveLength(2);
    const [one, two] = await Promise.all(imported.map((entry) => projectOf(entry.id)));
    expect(one).toBe(two);
    expect(one).toBe(report.projects.find((project) => project.name === "Shared project")?.id);
    const projectFiles = await filesOfProject(one ?? "");
    expect(projectFiles.map((file) => file.filename)).toEqual(["plan.txt"]);
    for (const entry of imported) {
      const copy = await exportJson(bob, entry.id);
      expect(copy.runs[0]?.sources[0]?.url).toBe(`attachment:${projectFiles[0]?.id}`);
    }
    expect(await projectOf(first)).toBe(projectId);
  });

  it("an archive whose conversations come before their project's entry still puts them in one project, citing its files", async () => {
    const projectId = await newProjectWith(alice, "Reordered");
    const fileId = await projectFile("alice", projectId, "order.txt", "Order does not matter.");
    const conversationId = await chatIn(alice, projectId, "Out of order", fileId);
    const document = await exportJson(alice, conversationId);
    const { projectFiles, project, ...conversation } = document;
    if (!project) throw new Error("exported without its project");
    const projectDocument: ProjectExport = {
      format: "ollama-web.project",
      version: 3,
      exportedAt: document.exportedAt,
      project,
      files: projectFiles,
    };
    const archive = makeZip([
      {
        name: "0001 Out of order.json",
        data: Buffer.from(JSON.stringify({ ...conversation, project, projectFiles: [] })),
      },
      { name: "projects/0001 Reordered.json", data: Buffer.from(JSON.stringify(projectDocument)) },
    ]);
    const report = await importAs(bob, archive);
    expect(report.skipped).toEqual([]);
    expect(report.projects).toEqual([{ name: "Reordered", id: expect.any(String) }]);
    const newProjectId = report.projects[0]?.id ?? "";
    expect(await projectOf(report.imported[0]?.id ?? "")).toBe(newProjectId);
    const [newFile] = await filesOfProject(newProjectId);
    const copy = await exportJson(bob, report.imported[0]?.id ?? "");
    expect(copy.runs[0]?.sources[0]?.url).toBe(`attachment:${newFile?.id}`);
  });

  it("carries the project's preset by name: an import takes the importer's own preset of that name, or none", async () => {
    const presetOf = async (who: TestClient, name: string) => {
      const response = await createPreset(who.request("/api/presets", "POST", { name, model: "qwen3:8b" }));
      expect(response.status).toBe(201);
      return ((await response.json()) as { preset: { id: string } }).preset.id;
    };
    const projectId = await newProjectWith(alice, "With a preset");
    const alicePreset = await presetOf(alice, "Careful reader");
    await patchProject(
      alice.request(`/api/projects/${projectId}`, "PATCH", { presetId: alicePreset }),
      params({ id: projectId }),
    );
    const fileId = await projectFile("alice", projectId, "preset.txt", "Preset.");
    const document = await exportJson(alice, await chatIn(alice, projectId, "Preset chat", fileId));
    expect(document.project?.preset).toBe("Careful reader");
    const presetIdOf = async (report: ImportReport) => {
      const [row] = await (await getDb())
        .select({ presetId: projects.presetId })
        .from(projects)
        .where(eq(projects.id, report.projects[0]?.id ?? ""));
      return row?.presetId;
    };
    expect(await presetIdOf(await importAs(alice, document))).toBe(alicePreset);
    // Bob has no preset of that name, and Alice's is never his.
    expect(await presetIdOf(await importAs(bob, document))).toBeNull();
    const bobPreset = await presetOf(bob, "Careful reader");
    expect(await presetIdOf(await importAs(bob, document))).toBe(bobPreset);
  });

  it("still imports a version-2 export, outside any project; one naming a project is refused", async () => {
    const projectId = await newProjectWith(alice, "Before projects");
    const fileId = await projectFile("alice", projectId, "old.txt", "Older.");
    const conversationId = await chatIn(alice, projectId, "Version two", fileId);
    const { project: _project, projectFiles: _files, ...current } = await exportJson(alice, conversationId);
    const before = await counts();
    const report = await importAs(alice, { ...current, version: 2 });
    expect(report.skipped).toEqual([]);
    expect(report.projects).toEqual([]);
    expect(await projectOf(report.imported[0]?.id ?? "")).toBeNull();
    expect(await counts()).toEqual({ ...before, conversations: before.conversations + 1 });

    const refused = await importAs(alice, { ...(await exportJson(alice, conversationId)), version: 2 });
    expect(refused.imported).toEqual([]);
    expect(refused.skipped).toEqual([
      expect.objectContaining({
        code: "bad_request:import_invalid",
        reason: expect.stringContaining("has no project"),
      }),
    ]);
  });

  it("counts a project's files against MAX_FILES_PER_PROJECT: over it, nothing of the conversation is stored", async () => {
    const projectId = await newProjectWith(alice, "Two files");
    const fileId = await projectFile("alice", projectId, "a.txt", "File a.");
    await projectFile("alice", projectId, "b.txt", "File b.");
    const document = await exportJson(alice, await chatIn(alice, projectId, "Too many", fileId));
    process.env.MAX_FILES_PER_PROJECT = "1";
    resetConfigForTests();
    try {
      const before = await counts();
      const report = await importAs(bob, document);
      expect(report.imported).toEqual([]);
      expect(report.projects).toEqual([]);
      expect(report.skipped).toEqual([
        expect.objectContaining({ title: "Too many", code: "conflict:project_files", details: { max: 1 } }),
      ]);
      expect(await counts()).toEqual(before);
    } finally {
      delete process.env.MAX_FILES_PER_PROJECT;
      resetConfigForTests();
    }
  });

  it("counts a project's files against the importer's storage: a second copy over MAX_STORAGE_MB_PER_USER is refused", async () => {
    const projectId = await newProjectWith(alice, "Large file");
    const fileId = await projectFile("alice", projectId, "large.txt", "x".repeat(600 * 1024));
    const document = await exportJson(alice, await chatIn(alice, projectId, "Large", fileId));
    const archive = makeZip([
      {
        name: "projects/0001 Large file.json",
        data: Buffer.from(
          JSON.stringify({
            format: "ollama-web.project",
            version: 3,
            exportedAt: document.exportedAt,
            project: document.project,
            files: document.projectFiles,
          }),
        ),
      },
    ]);
    process.env.MAX_STORAGE_MB_PER_USER = "1";
    resetConfigForTests();
    try {
      const first = await importAs(bob, document);
      expect(first.skipped).toEqual([]);
      const before = await counts();
      // Its conversation holds no file: only the project's counts.
      const second = await importAs(bob, document);
      expect(second.imported).toEqual([]);
      expect(second.skipped).toEqual([
        expect.objectContaining({ title: "Large", code: "payload_too_large:storage_quota" }),
      ]);
      // The project's own document (as in the archive) is counted the same way.
      const alone = await importAs(bob, archive);
      expect(alone.projects).toEqual([]);
      expect(alone.skipped).toEqual([
        expect.objectContaining({
          title: "Large file",
          entry: "projects/0001 Large file.json",
          code: "payload_too_large:storage_quota",
        }),
      ]);
      expect(await counts()).toEqual(before);
    } finally {
      delete process.env.MAX_STORAGE_MB_PER_USER;
      resetConfigForTests();
    }
  });

  it("never exports another user's project, even one a conversation names", async () => {
    const secretId = await newProjectWith(alice, "Alice's secret project");
    const secretFile = await projectFile("alice", secretId, "secret.txt", "The secret recipe.");
    const response = await createConversation(bob.request("/api/conversations", "POST", { title: "Bob's chat" }));
    const { id } = ((await response.json()) as { conversation: { id: string } }).conversation;
    await insertMessage(await getDb(), { conversationId: id, role: "user", content: "hello" });
    // A conversation naming a project that is not its owner's: the API never lets this happen.
    await (await getDb()).update(conversations).set({ projectId: secretId }).where(eq(conversations.id, id));

    const document = await exportJson(bob, id);
    expect(document.project).toBeNull();
    expect(document.projectFiles).toEqual([]);
    const everything = [JSON.stringify(document)];
    for (const entry of (await jsonEntries(await archiveOf(bob))).values()) everything.push(JSON.stringify(entry));
    const secretBytes = Buffer.from("The secret recipe.").toString("base64");
    for (const text of everything) {
      expect(text).not.toContain("Alice's secret project");
      expect(text).not.toContain(secretFile);
      expect(text).not.toContain(secretBytes);
    }
  });

  it("never imports into an existing project: a document naming another user's project makes the importer's own", async () => {
    const secretId = await newProjectWith(alice, "Alice's target");
    const fileId = await projectFile("alice", secretId, "target.txt", "Target.");
    const document = await exportJson(alice, await chatIn(alice, secretId, "Aimed at Alice", fileId));
    const report = await importAs(bob, document);
    expect(report.projects).toEqual([{ name: "Alice's target", id: expect.any(String) }]);
    expect(report.projects[0]?.id).not.toBe(secretId);
    expect(await projectOf(report.imported[0]?.id ?? "")).toBe(report.projects[0]?.id);
    expect(await filesOfProject(secretId)).toEqual([{ id: fileId, filename: "target.txt" }]);
    const [bobsOwn] = await (await getDb())
      .select()
      .from(projects)
      .where(eq(projects.id, report.projects[0]?.id ?? ""));
    expect(bobsOwn?.userId).toBe(await ownerIdOf("bob"));
  });
});
