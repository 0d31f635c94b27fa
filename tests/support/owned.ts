import { expect } from "vitest";
import { POST as createConversation } from "@/app/api/conversations/route";
import { POST as createProject } from "@/app/api/projects/route";
import type { TestClient } from "./accounts";

/** A project of `who`'s, made through the API (`body`: its other fields); its id. */
export async function newProject(who: TestClient, name: string, body: Record<string, unknown> = {}): Promise<string> {
  const response = await createProject(who.request("/api/projects", "POST", { name, ...body }));
  expect(response.status).toBe(201);
  return ((await response.json()) as { project: { id: string } }).project.id;
}

/** A conversation of `who`'s, made through the API; its id. */
export async function newChat(who: TestClient, body: Record<string, unknown> = {}): Promise<string> {
  const response = await createConversation(who.request("/api/conversations", "POST", body));
  expect(response.status).toBe(201);
  return ((await response.json()) as { conversation: { id: string } }).conversation.id;
}
