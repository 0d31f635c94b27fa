import "server-only";
import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { getConversation, type OwnerId } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { tooLarge } from "@/lib/http/body";
import { openPdf, PdfError, pdfLimits } from "@/lib/tools/pdf/pdf-text";
import { insertFile } from "./file-store";
import { checkImage, type ImageLimits } from "./image-inspect";
import { safeFilename, sniffFileType } from "./sniff";

/** Uploads: PDFs and images, recognised by content, size-limited, page count stored. */

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
    ownerId,
    filename,
    bytes,
    maxBytes,
    imageLimits,
  }: {
    conversationId: string;
    ownerId: OwnerId;
    filename: string;
    bytes: Buffer;
    maxBytes: number;
    imageLimits: ImageLimits;
  },
): Promise<UploadResult> {
  getConversation(db, { id: conversationId, ownerId });
  if (bytes.length === 0) throw new AppError("bad_request:empty_file", "The file is empty.");
  if (bytes.length > maxBytes) throw tooLarge(maxBytes, "The file");
  const type = sniffFileType(bytes);
  if (!type) {
    throw new AppError(
      "unsupported_media_type:file",
      "Only PDF files and images (PNG, JPEG, GIF, WebP) can be attached.",
    );
  }
  // Every frame is checked before anything is stored; the image itself is never decoded here.
  if (type.kind === "image") checkImage(bytes, imageLimits);
  let pageCount: number | null = null;
  if (type.kind === "pdf") {
    // Counted in a PDF worker under the same limits as the tools: a PDF bomb is refused, not stored.
    try {
      const pdf = await openPdf(new Uint8Array(bytes), pdfLimits(getConfig()));
      pageCount = pdf.pageCount;
      await pdf.close();
    } catch (error) {
      if (error instanceof PdfError) {
        const code = error.exceededLimit ? "payload_too_large:pdf" : "unsupported_media_type:pdf";
        throw new AppError(code, `${error.message} It cannot be attached.`);
      }
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
