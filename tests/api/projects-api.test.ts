import { describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { GET as getConversation, PATCH as patchConversation } from "@/app/api/conversations/[id]/route";
import { POST as stopRun } from "@/app/api/conversations/[id]/stop/route";
import { POST as createConversation } from "@/app/api/conversations/route";
import { POST as createPreset } from "@/app/api/presets/route";
import { DELETE as deleteProject, GET as getProject, PATCH as patchProject } from "@/app/api/projects/[id]/route";
import { POST as createProject, GET as listProjects } from "@/app/api/projects/route";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getConfig } from "@/lib/env-config";
import type { RecordedRequest } from "@/tests/fake-ollama/server";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { setupAccounts, type TestClient } from "@/tests/support/accounts";
import { expectApiError, params, readEvents, setupAppEnv, waitIdle } from "@/tests/support/app-env";

/** Projects (docs/architecture.md, "Projects and memory"): one user's, never another's. */

const fake = setupFakeOllama();
setupAppEnv(fake);

const { admin: alice, user: bob } = setupAccounts({ admin: "alice", user: "bob" });

interface Project {
  id: string;
  name: string;
  instructions: string;
  model: string | null;
  presetId: string | null;
  collapsed: boolean;
}

interface Conversation {
  id: string;
  model: string | null;
  projectId: string | null;
  settings: Record<string, unknown>;
}

async function newProject(who: TestClient, body: Record<string, unknown>): Promise<Project> {
  const response = await createProject(who.request("/api/projects", "POST", body));
  expect(response.status).toBe(201);
  return ((await response.json()) as { project: Project }).project;
}

async function projectsOf(who: TestClient): Promise<Project[]> {
  return ((await (await listProjects(who.request("/api/projects", "GET"))).json()) as { projects: Project[] }).projects;
}

const newChat = (who: TestClient, body: Record<string, unknown> = {}) =>
  createConversation(who.request("/api/conversations", "POST", body));

async function newChatIn(who: TestClient, body: Record<string, unknown>): Promise<Conversation> {
  const response = await newChat(who, body);
  expect(response.status).toBe(201);
  return ((await response.json()) as { conversation: Conversation }).conversation;
}

const moveTo = (who: TestClient, id: string, projectId: string | null) =>
  patchConversation(who.request(`/api/conversations/${id}`, "PATCH", { projectId }), params({ id }));

async function conversationOf(who: TestClient, id: string): Promise<Response> {
  return getConversation(who.request(`/api/conversations/${id}`, "GET"), params({ id }));
}

const removeProject = (who: TestClient, id: string, query = "") =>
  deleteProject(who.request(`/api/projects/${id}${query}`, "DELETE"), params({ id }));

describe("projects: create, list, change, delete", () => {
  it("creates a project with trimmed name and defaults, lists it, renames and folds it", async () => {
    const project = await newProject(alice, { name: "  Thesis  ", instructions: "Cite page numbers." });
    expect(project).toMatchObject({
      name: "Thesis",
      instructions: "Cite page numbers.",
      model: null,
      collapsed: false,
    });
    expect((await projectsOf(alice)).map((p) => p.id)).toContain(project.id);

    const changed = await patchProject(
      alice.request(`/api/projects/${project.id}`, "PATCH", { name: "Thesis 2", collapsed: true, model: "qwen3:8b" }),
      params({ id: project.id }),
    );
    expect(changed.status).toBe(200);
    expect(((await changed.json()) as { project: Project }).project).toMatchObject({
      name: "Thesis 2",
      collapsed: true,
      model: "qwen3:8b",
      instructions: "Cite page numbers.",
    });
  });

  it("refuses an empty name, unknown fields, an empty change and instructions over MAX_INSTRUCTIONS_CHARS", async () => {
    await expectApiError(
      await createProject(alice.request("/api/projects", "POST", { name: "  " })),
      400,
      "bad_request:validation",
    );
    await expectApiError(
      await createProject(alice.request("/api/projects", "POST", { name: "x", owner: "bob" })),
      400,
      "bad_request:validation",
    );
    const project = await newProject(alice, { name: "Limits" });
    await expectApiError(
      await patchProject(alice.request(`/api/projects/${project.id}`, "PATCH", {}), params({ id: project.id })),
      400,
      "bad_request:validation",
    );
    const max = getConfig().MAX_INSTRUCTIONS_CHARS;
    await newProject(alice, { name: "At the limit", instructions: "日".repeat(max) });
    await expectApiError(
      await createProject(alice.request("/api/projects", "POST", { name: "Over", instructions: "日".repeat(max + 1) })),
      400,
      "bad_request:validation",
    );
  });
});

describe("projects are their owner's only", () => {
  it("another user neither lists, reads, changes nor deletes a project: 404 as for a missing one", async () => {
    const project = await newProject(alice, { name: "Alice's secrets", instructions: "Private." });
    expect((await projectsOf(bob)).map((p) => p.id)).not.toContain(project.id);
    const id = project.id;
    await expectApiError(
      await getProject(bob.request(`/api/projects/${id}`, "GET"), params({ id })),
      404,
      "not_found:project",
    );
    await expectApiError(
      await patchProject(bob.request(`/api/projects/${id}`, "PATCH", { name: "mine" }), params({ id })),
      404,
      "not_found:project",
    );
    await expectApiError(await removeProject(bob, id, "?conversations=1"), 404, "not_found:project");
    const still = await getProject(alice.request(`/api/projects/${id}`, "GET"), params({ id }));
    expect(((await still.json()) as { project: Project }).project.name).toBe("Alice's secrets");
  });

  it("a chat is neither started in nor moved into another user's project", async () => {
    const project = await newProject(alice, { name: "Alice only" });
    await expectApiError(await newChat(bob, { projectId: project.id }), 404, "not_found:project");
    const bobs = await newChatIn(bob, {});
    await expectApiError(await moveTo(bob, bobs.id, project.id), 404, "not_found:project");
    expect(
      ((await (await conversationOf(bob, bobs.id)).json()) as { conversation: Conversation }).conversation,
    ).toMatchObject({ projectId: null });
  });

  it("a project does not take another user's preset", async () => {
    const response = await createPreset(bob.request("/api/presets", "POST", { name: "Bob's", model: "llama3.2" }));
    const preset = ((await response.json()) as { preset: { id: string } }).preset;
    await expectApiError(
      await createProject(alice.request("/api/projects", "POST", { name: "P", presetId: preset.id })),
      404,
      "not_found:preset",
    );
    const project = await newProject(alice, { name: "Q" });
    await expectApiError(
      await patchProject(
        alice.request(`/api/projects/${project.id}`, "PATCH", { presetId: preset.id }),
        params({ id: project.id }),
      ),
      404,
      "not_found:preset",
    );
  });
});

describe("a new chat in a project", () => {
  it("starts with the project's model and preset; the request's model comes first", async () => {
    const presetResponse = await createPreset(
      alice.request("/api/presets", "POST", { name: "Careful", model: "llama3.2", settings: { temperature: 0.1 } }),
    );
    const preset = ((await presetResponse.json()) as { preset: { id: string } }).preset;
    const withModel = await newProject(alice, { name: "Models", model: "qwen3:8b", presetId: preset.id });
    const chat1 = await newChatIn(alice, { projectId: withModel.id });
    expect(chat1).toMatchObject({ projectId: withModel.id, model: "qwen3:8b", settings: { temperature: 0.1 } });
    const chat2 = await newChatIn(alice, { projectId: withModel.id, model: "gemma3:4b" });
    expect(chat2.model).toBe("gemma3:4b");
    const presetOnly = await newProject(alice, { name: "Preset only", presetId: preset.id });
    expect((await newChatIn(alice, { projectId: presetOnly.id })).model).toBe("llama3.2");
    const chosenNone = await newChatIn(alice, { projectId: presetOnly.id, presetId: null });
    expect(chosenNone.settings).toEqual({});
  });
});

describe("moving conversations and deleting projects", () => {
  it("moves a conversation in and out of a project", async () => {
    const project = await newProject(alice, { name: "Moves" });
    const conversation = await newChatIn(alice, {});
    const moved = await moveTo(alice, conversation.id, project.id);
    expect(((await moved.json()) as { conversation: Conversation }).conversation.projectId).toBe(project.id);
    const out = await moveTo(alice, conversation.id, null);
    expect(((await out.json()) as { conversation: Conversation }).conversation.projectId).toBeNull();
  });

  it("deleting a project keeps its conversations, outside any project, unless asked to delete them too", async () => {
    const kept = await newProject(alice, { name: "Keep my chats" });
    const stays = await newChatIn(alice, { projectId: kept.id });
    expect((await removeProject(alice, kept.id)).status).toBe(204);
    const after = await conversationOf(alice, stays.id);
    expect(((await after.json()) as { conversation: Conversation }).conversation.projectId).toBeNull();

    const gone = await newProject(alice, { name: "Delete my chats" });
    const goes = await newChatIn(alice, { projectId: gone.id });
    const elsewhere = await newChatIn(alice, {});
    expect((await removeProject(alice, gone.id, "?conversations=1")).status).toBe(204);
    await expectApiError(await conversationOf(alice, goes.id), 404, "not_found:conversation");
    expect((await conversationOf(alice, elsewhere.id)).status).toBe(200);
    await expectApiError(await removeProject(alice, gone.id), 404, "not_found:project");
  });

  it("refuses to delete a project with its conversations while one of them has a running answer, and deletes nothing", async () => {
    const project = await newProject(alice, { name: "Busy" });
    const conversation = await newChatIn(alice, { projectId: project.id });
    fake().reset();
    fake().script({ when: { hasTools: true }, hang: true });
    const started = await chat(
      alice.request("/api/chat", "POST", { conversationId: conversation.id, message: "Wait" }),
    );
    expect(started.status).toBe(200);
    await expect.poll(() => getLiveRuns().forConversation(conversation.id)).toBeDefined();
    await expectApiError(await removeProject(alice, project.id, "?conversations=1"), 409, "conflict:run_active");
    expect((await conversationOf(alice, conversation.id)).status).toBe(200);
    expect((await projectsOf(alice)).map((p) => p.id)).toContain(project.id);

    const stopped = await stopRun(
      alice.request(`/api/conversations/${conversation.id}/stop`, "POST"),
      params({ id: conversation.id }),
    );
    expect(stopped.status).toBe(202);
    await readEvents(started);
    await waitIdle(fake(), conversation.id);
    expect((await removeProject(alice, project.id, "?conversations=1")).status).toBe(204);
    await expectApiError(await conversationOf(alice, conversation.id), 404, "not_found:conversation");
  });
});

const systemOf = (request: RecordedRequest | undefined) =>
  ((request?.body.messages ?? []) as { role: string; content: string }[]).find((m) => m.role === "system")?.content ??
  "";

async function runTurn(who: TestClient, conversationId: string, message: string): Promise<void> {
  const response = await chat(who.request("/api/chat", "POST", { conversationId, message }));
  expect(response.status).toBe(200);
  await readEvents(response);
  await waitIdle(fake(), conversationId);
}

describe("a project's instructions reach the model", () => {
  it("sends the project's instructions before the chat's own, and stops once the chat leaves the project", async () => {
    const project = await newProject(alice, { name: "House style", instructions: "Use metric units." });
    const conversation = await newChatIn(alice, { projectId: project.id });
    await patchConversation(
      alice.request(`/api/conversations/${conversation.id}`, "PATCH", { settings: { instructions: "Be brief." } }),
      params({ id: conversation.id }),
    );
    fake().reset();
    fake().script({ when: { hasTools: true }, content: "Ten kilometres." });
    await runTurn(alice, conversation.id, "How far is it?");
    const system = systemOf(fake().chatRequests()[0]);
    expect(system).toContain("Use metric units.");
    expect(system).toContain("Be brief.");
    expect(system.indexOf("Use metric units.")).toBeLessThan(system.indexOf("Be brief."));

    await moveTo(alice, conversation.id, null);
    fake().reset();
    fake().script({ when: { hasTools: true }, content: "Six miles." });
    await runTurn(alice, conversation.id, "And now?");
    const after = systemOf(fake().chatRequests()[0]);
    expect(after).not.toContain("Use metric units.");
    expect(after).toContain("Be brief.");
  });
});
