import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { listProjectFiles } from "@/lib/db/files";
import { getProject } from "@/lib/db/projects";
import { uploadFromRequest } from "@/lib/files/upload-request";
import { apiRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** The project's files, newest first (docs/api.md, "Files"). */
export const GET = apiRoute(async (_request: Request, { params }: Context, viewer) => {
  const { id } = await params;
  const db = await getDb();
  await getProject(db, { id, ownerId: ownerOf(viewer) });
  return Response.json(
    { files: await listProjectFiles(db, id) },
    { headers: { "Cache-Control": "private, no-store" } },
  );
});

/** Multipart upload of one `file` into the project: every conversation of the project reads it. */
export const POST = apiRoute(async (request: Request, { params }: Context, viewer) => {
  const { id } = await params;
  const db = await getDb();
  const ownerId = ownerOf(viewer);
  await getProject(db, { id, ownerId });
  const result = await uploadFromRequest(db, request, { holder: { projectId: id }, ownerId });
  return Response.json(result, { status: 201 });
});
