import "server-only";
import type { Db } from "@/lib/db/client";
import { getConversation, type OwnerId } from "@/lib/db/conversations";
import { type FileHolder, sha256 } from "@/lib/db/files";
import { getProject } from "@/lib/db/projects";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { tooLarge } from "@/lib/http/body";
import { openPdf, PdfError, pdfLimits } from "@/lib/tools/pdf/pdf-text";
import { attachmentText, decodeText } from "./attachment-text";
import { looksBinary } from "./document-types";
import { DocxError, docxRefusal } from "./docx-html";
import { insertFileInQuota } from "./file-store";
import { checkImage, type ImageLimits } from "./image-inspect";
import { fileLimits, quotaError, quotaRefusal } from "./quota";
import { isZip, type SniffedType, safeFilename, sniffFileType } from "./sniff";

/**
 * Uploads: PDFs, images, DOCX and text files (TXT, MD, CSV, JSON, HTML), recognised by content,
 * size-limited, checked to be readable before anything is stored; a PDF's page count stored.
 */

const ACCEPTED =
  "Only PDF files, images (PNG, JPEG, GIF, WebP), Word documents (DOCX) and text files (TXT, MD, CSV, JSON, HTML) can be attached.";

export interface UploadResult {
  id: string;
  filename: string;
  mime: string;
  size: number;
  pageCount: number | null;
  ref: string;
}

/** Stores a file the user brings to one of their conversations or projects (404 when it is not theirs). */
export async function storeUpload(
  db: Db,
  {
    holder,
    ownerId,
    filename,
    bytes,
    maxBytes,
    imageLimits,
  }: {
    holder: FileHolder;
    ownerId: OwnerId;
    filename: string;
    bytes: Buffer;
    maxBytes: number;
    imageLimits: ImageLimits;
  },
): Promise<UploadResult> {
  if (holder.projectId !== undefined) await getProject(db, { id: holder.projectId, ownerId });
  else await getConversation(db, { id: holder.conversationId, ownerId });
  const limits = fileLimits(getConfig());
  // Refused at once when it cannot fit, before its checks run; counted again where it is stored.
  const early = await quotaRefusal(db, {
    ownerId,
    ...holder,
    adding: { files: 1, bytes: bytes.length },
    limits,
    lock: false,
  });
  if (early) throw quotaError(early);
  const checked = await checkUpload({ filename, bytes, maxBytes, imageLimits });
  const stored = await insertFileInQuota(db, {
    file: { ...holder, origin: "upload", ...checked, bytes, sourceUrl: null },
    ownerId,
    limits,
  });
  if ("refused" in stored) throw quotaError(stored.refused);
  return { ...stored, pageCount: checked.pageCount, ref: `attachment:${stored.id}` };
}

/** What an accepted file is stored as: its type by content, a safe name of that type, a PDF's page count. */
export interface CheckedUpload {
  filename: string;
  mime: string;
  pageCount: number | null;
}

/**
 * The checks every file a user brings goes through (uploads and imported conversations' files):
 * size, type by content, images' frames, text that is text, DOCX and PDF limits. Throws the
 * refusal as an AppError; stores nothing.
 */
export async function checkUpload({
  filename,
  bytes,
  maxBytes,
  imageLimits,
}: {
  filename: string;
  bytes: Buffer;
  maxBytes: number;
  imageLimits: ImageLimits;
}): Promise<CheckedUpload> {
  if (bytes.length === 0) throw new AppError("bad_request:empty_file", "The file is empty.");
  if (bytes.length > maxBytes) throw tooLarge(maxBytes, "The file");
  const type = sniffFileType(bytes, filename);
  if (!type) {
    if (isZip(bytes)) {
      throw new AppError("unsupported_media_type:zip", `A ZIP archive that is not a Word document. ${ACCEPTED}`);
    }
    throw new AppError("unsupported_media_type:file", ACCEPTED);
  }
  // Every frame is checked before anything is stored; the image itself is never decoded here.
  if (type.kind === "image") checkImage(bytes, imageLimits);
  if (type.kind === "text") checkText(bytes, type);
  if (type.kind === "docx") await checkDocx(bytes, type);
  const pageCount = type.kind === "pdf" ? await countPdfPages(bytes) : null;
  return { filename: safeFilename(filename, type.extension), mime: type.mime, pageCount };
}

/** Counted in a PDF worker under the same limits as the tools: a PDF bomb is refused, not stored. */
async function countPdfPages(bytes: Buffer): Promise<number> {
  try {
    const pdf = await openPdf(new Uint8Array(bytes), pdfLimits(getConfig()));
    const pageCount = pdf.pageCount;
    await pdf.close();
    return pageCount;
  } catch (error) {
    if (error instanceof PdfError) {
      const code = error.exceededLimit ? "payload_too_large:pdf" : "unsupported_media_type:pdf";
      throw new AppError(code, `${error.message} It cannot be attached.`);
    }
    throw error;
  }
}

function checkText(bytes: Buffer, type: SniffedType): void {
  const maxBytes = getConfig().MAX_TEXT_FILE_MB * 1024 * 1024;
  if (bytes.length > maxBytes) {
    const error = tooLarge(maxBytes, "A text file");
    throw new AppError("payload_too_large:text_file", error.message, { details: { limitBytes: maxBytes } });
  }
  if (looksBinary(decodeText(bytes, type.mime, type.mime === "text/html"))) {
    throw new AppError(
      "unsupported_media_type:binary_text",
      `The file is named .${type.extension} but holds binary data, not text. It cannot be attached.`,
      { details: { extension: type.extension } },
    );
  }
}

/** Converted once now, in a worker under the DOCX limits (and kept for the first read): a bomb is refused, not stored. */
async function checkDocx(bytes: Buffer, type: SniffedType): Promise<void> {
  try {
    await attachmentText({ mime: type.mime, sha256: sha256(bytes), bytes }, "docx", getConfig());
  } catch (error) {
    if (!(error instanceof DocxError)) throw error;
    throw docxRefusal(error, " It cannot be attached.");
  }
}
