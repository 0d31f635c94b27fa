import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { deleteProjectFile, findProjectFile } from "@/lib/db/files";
import { getProject } from "@/lib/db/projects";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { fileDownload } from "@/lib/http/responses";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string; fileId: string }> };

const notFound = (fileId: string) => new AppError("not_found:file", `File ${fileId} not found in this project.`);

/** The file's bytes, always as a download; another project's file is a 404. */
export const GET = apiRoute(async (_request: Request, { params }: Context, viewer) => {
  const { id, fileId } = await params;
  const db = await getDb();
  await getProject(db, { id, ownerId: ownerOf(viewer) });
  const file = await findProjectFile(db, { projectId: id, fileId });
  if (!file) throw notFound(fileId);
  return fileDownload(file);
});

/** Deletes the file and its library passages; conversations that referred to it read "not found" from now on. */
export const DELETE = apiRoute(async (_request: Request, { params }: Context, viewer) => {
  const { id, fileId } = await params;
  const db = await getDb();
  await getProject(db, { id, ownerId: ownerOf(viewer) });
  if (!(await deleteProjectFile(db, { projectId: id, fileId }))) throw notFound(fileId);
  return new Response(null, { status: 204 });
});
