import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { findOwnedFile } from "@/lib/db/files";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { attachmentText, textFormatOf } from "@/lib/files/attachment-text";
import { DocxError, docxRefusal } from "@/lib/files/docx-html";
import { apiRoute } from "@/lib/http/api-route";
import { sliceText } from "@/lib/tools/page-fit";

export const dynamic = "force-dynamic";

/**
 * The start of a text or DOCX file as the model reads it, for the file's preview:
 * `{text, truncated, chars}`, at most FILE_PREVIEW_CHARS characters. PDFs and images have none (415).
 */
export const GET = apiRoute(
  async (_request: Request, { params }: { params: Promise<{ id: string; fileId: string }> }, viewer) => {
    const { id, fileId } = await params;
    const file = await findOwnedFile(await getDb(), { conversationId: id, ownerId: ownerOf(viewer), fileId });
    const format = textFormatOf(file.mime);
    if (!format) throw new AppError("unsupported_media_type:preview", "This file has no text preview.");
    const config = getConfig();
    let text: string;
    try {
      ({ text } = await attachmentText(file, format, config));
    } catch (error) {
      if (!(error instanceof DocxError)) throw error;
      throw docxRefusal(error);
    }
    const max = config.FILE_PREVIEW_CHARS;
    return Response.json(
      { text: sliceText(text, 0, max), truncated: text.length > max, chars: text.length },
      { headers: { "Cache-Control": "private, max-age=0" } },
    );
  },
);
