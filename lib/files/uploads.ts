import "server-only";
import type { Db } from "@/lib/db/client";
import { getConversation } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { openPdf, PdfError } from "@/lib/tools/pdf/pdf-text";
import { insertFile } from "./file-store";
import { safeFilename, sniffFileType } from "./sniff";

/** SPEC §12 uploads: PDFs and images, recognised by content, size-limited, page count stored. */

export interface UploadResult {
  id: string;
  filename: string;
  mime: string;
  size: number;
  pageCount: number | null;
  ref: string;
}

export async function storeUpload(
  db: Db,
  {
    conversationId,
    filename,
    bytes,
    maxBytes,
  }: { conversationId: string; filename: string; bytes: Buffer; maxBytes: number },
): Promise<UploadResult> {
  getConversation(db, { id: conversationId });
  if (bytes.length === 0) throw new AppError("bad_request:empty_file", "The file is empty.");
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  const type = sniffFileType(bytes);
  if (!type) {
    throw new AppError(
      "unsupported_media_type:file",
      "Only PDF files and images (PNG, JPEG, GIF, WebP) can be attached.",
    );
  }
  let pageCount: number | null = null;
  if (type.kind === "pdf") {
    try {
      const pdf = await openPdf(new Uint8Array(bytes));
      pageCount = pdf.pageCount;
      await pdf.close();
    } catch (error) {
      if (error instanceof PdfError)
        throw new AppError("unsupported_media_type:pdf", `${error.message} It cannot be attached.`);
      throw error;
    }
  }
  const stored = insertFile(db, {
    conversationId,
    origin: "upload",
    filename: safeFilename(filename, type.extension),
    mime: type.mime,
    bytes,
    pageCount,
    sourceUrl: null,
  });
  return { ...stored, pageCount, ref: `attachment:${stored.id}` };
}

export function tooLarge(maxBytes: number): AppError {
  return new AppError(
    "payload_too_large:file",
    `The file is larger than the ${Math.round(maxBytes / 1024 / 1024)} MB limit (MAX_FETCH_MB).`,
  );
}

/** Reads a request body up to `maxBytes`, failing with 413 as soon as it is passed. */
export async function readBodyLimited(request: Request, maxBytes: number): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
