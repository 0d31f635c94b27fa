import "server-only";
import type { Db } from "@/lib/db/client";
import type { OwnerId } from "@/lib/db/conversations";
import type { FileHolder } from "@/lib/db/files";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { readBodyLimited } from "@/lib/http/body";
import { storeUpload, type UploadResult } from "./uploads";

/**
 * An upload request (docs/api.md, "Files"): multipart `file`, read within the file limit plus a
 * little room for the multipart envelope, stored for the conversation or project it names.
 */
export async function uploadFromRequest(
  db: Db,
  request: Request,
  { holder, ownerId }: { holder: FileHolder; ownerId: OwnerId },
): Promise<UploadResult> {
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
  return storeUpload(db, {
    holder,
    ownerId,
    filename: file instanceof File ? file.name : "file",
    bytes: Buffer.from(await file.arrayBuffer()),
    maxBytes,
    imageLimits: { maxPixels: config.MAX_IMAGE_PIXELS, maxFrames: config.MAX_IMAGE_FRAMES },
  });
}
