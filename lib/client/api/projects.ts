/** The user's projects (docs/api.md, "Projects"; uploads into one are `lib/client/upload.ts`). */
import type { z } from "zod";
import type { projectBody, projectPatch } from "@/app/api/projects/schema";
import type { Project, ProjectFile } from "../types";
import { jsonBody, request } from "./request";

export type ProjectFields = z.input<ReturnType<typeof projectBody>>;
export type ProjectPatch = z.input<ReturnType<typeof projectPatch>>;

export const projectPath = (id: string) => `/api/projects/${encodeURIComponent(id)}`;

/** Where a project's file downloads from (served as an attachment, never inline). */
export const projectFileUrl = (projectId: string, fileId: string) =>
  `${projectPath(projectId)}/files/${encodeURIComponent(fileId)}`;

export const projectsApi = {
  projects: () => request<{ projects: Project[] }>("/api/projects", { cache: "no-store" }),

  createProject: (body: ProjectFields) => request<{ project: Project }>("/api/projects", jsonBody("POST", body)),

  updateProject: (id: string, body: ProjectPatch) =>
    request<{ project: Project }>(projectPath(id), jsonBody("PATCH", body)),

  /** `withConversations`: its conversations are deleted too; otherwise they stay, outside any project. */
  deleteProject: (id: string, { withConversations }: { withConversations: boolean }) =>
    request<void>(`${projectPath(id)}?conversations=${withConversations ? 1 : 0}`, { method: "DELETE" }),

  projectFiles: (id: string) => request<{ files: ProjectFile[] }>(`${projectPath(id)}/files`, { cache: "no-store" }),

  deleteProjectFile: (projectId: string, fileId: string) =>
    request<void>(projectFileUrl(projectId, fileId), { method: "DELETE" }),
};
