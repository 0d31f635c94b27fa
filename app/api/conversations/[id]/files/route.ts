import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { storeUpload } from "@/lib/files/uploads";
import { apiRoute } from "@/lib/http/api-route";
import { readBodyLimited } from "@/lib/http/body";

export const dynamic = "force-dynamic";

/** Multipart upload of one `file`. The multipart envelope gets a little room over the file limit. */
export const POST = apiRoute(async (request: Request, { params }: { params: Promise<{ id: string }> }, viewer) => {
  const { id } = await params;
  const db = await getDb();
  await getConversation(db, { id, ownerId: ownerOf(viewer) });
  const config = getConfig();
  const maxBytes = config.MAX_FETCH_MB * 1024 * 1024;
  const contentType = request.headers.get("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("multipart/form-data")) {
    throw new AppError(
      "unsupported_media_type:upload",
      "Upload the file as multipart/form-data in a field named file.",
    );
  }
  const body = await readBodyLimited(request, maxBytes + 64 * 1024, "The file");
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(body), { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new AppError("bad_request:multipart", "The upload is not valid multipart/form-data.");
  }
  const file = form.get("file");
  if (!(file instanceof Blob))
    throw new AppError("bad_request:validation", "Invalid request: file: a file is required.");
  const result = await storeUpload(db, {
    conversationId: id,
    ownerId: ownerOf(viewer),
    filename: file instanceof File ? file.name : "file",
    bytes: Buffer.from(await file.arrayBuffer()),
    maxBytes,
    imageLimits: { maxPixels: config.MAX_IMAGE_PIXELS, maxFrames: config.MAX_IMAGE_FRAMES },
  });
  return Response.json(result, { status: 201 });
});
