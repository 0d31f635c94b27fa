import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { createProject, listProjects } from "@/lib/db/projects";
import { getConfig } from "@/lib/env-config";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { projectBody } from "./schema";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async (_request: Request, _context: unknown, viewer) =>
  Response.json({ projects: await listProjects(await getDb(), { ownerId: ownerOf(viewer) }) }),
);

export const POST = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const body = await parseJsonBody(request, projectBody(getConfig().MAX_INSTRUCTIONS_CHARS));
  return Response.json(
    { project: await createProject(await getDb(), { ...body, ownerId: ownerOf(viewer) }) },
    { status: 201 },
  );
});
