import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { readAnswerRows } from "@/lib/db/conversation-transfer";
import { AppError } from "@/lib/errors";
import { answerDocument, answerMarkdown } from "@/lib/export/answer-document";
import { answerDocx } from "@/lib/export/answer-docx";
import { exportFilename } from "@/lib/export/filename";
import { contentDisposition } from "@/lib/files/sniff";
import { apiRoute } from "@/lib/http/api-route";
import { parseWith } from "@/lib/http/responses";
import { answerExportQuery } from "./schema";

export const dynamic = "force-dynamic";

const TYPES = {
  md: "text/markdown; charset=utf-8",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
} as const;

/**
 * One answer as a download (docs/api.md): Markdown or Word, with the references it cites at the end
 * (docs/research.md, "Exports"). Another user's conversation, or a message not in it, is a 404.
 */
export const GET = apiRoute(
  async (request: Request, { params }: { params: Promise<{ id: string; messageId: string }> }, viewer) => {
    const { id, messageId } = await params;
    const { format } = parseWith(answerExportQuery, Object.fromEntries(new URL(request.url).searchParams));
    const db = await getDb();
    const rows = await readAnswerRows(db, { conversationId: id, messageId, ownerId: ownerOf(viewer) });
    if (rows.message.role !== "assistant") {
      throw new AppError("bad_request:validation", "Invalid request: only an answer can be exported as a document.");
    }
    const document = answerDocument({
      title: rows.conversation.title,
      question: rows.question?.content ?? null,
      model: rows.run?.model ?? null,
      answeredAt: rows.message.createdAt,
      content: rows.message.content,
      mode: rows.run?.mode ?? null,
      sources: rows.sources,
      report: rows.report,
      files: rows.fileNames,
    });
    const body = format === "md" ? answerMarkdown(document) : new Uint8Array(await answerDocx(document));
    const { name, ascii } = exportFilename(rows.conversation.title, format);
    return new Response(body, {
      headers: {
        "Content-Type": TYPES[format],
        "Content-Disposition": contentDisposition(name, ascii),
        "Cache-Control": "private, no-store",
      },
    });
  },
);
