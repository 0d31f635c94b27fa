import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { Artifact } from "@/lib/protocol/run-events";
import { type ToolOutcome, toolError, toolOk } from "@/lib/tools/outcome";

/**
 * An MCP tool's result as an outcome. Text is the observation. The first image, or the first
 * embedded HTML or Markdown document, becomes the outcome's artifact: the UI previews it and the
 * model reads a short notice naming it instead of the blob (`RunState`). Other media, and artifacts
 * over the size limit, are named in the text so the model knows they were there.
 */

/** Image types a browser shows in an `<img>` without running anything. */
const IMAGE_TYPES: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};
const DOCUMENT_TYPES: Record<string, string> = { "text/html": "html", "text/markdown": "md" };

export interface ResultLimits {
  /** The largest artifact kept, in bytes (decoded for images). */
  maxArtifactBytes: number;
}

const base64Bytes = (data: string) => Math.floor((data.replace(/=+$/, "").length * 3) / 4);
const mimeOf = (mimeType: string | undefined) => (mimeType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

/** A file name for the artifact: the resource's own when its URI has one, else the tool's name. */
function artifactName(toolName: string, extension: string, uri?: string): string {
  const last = uri ? decodeURIComponent(uri.split(/[?#]/)[0]?.split("/").pop() ?? "") : "";
  const own = last.replace(/[^\p{L}\p{N}._-]/gu, "_").slice(-100);
  return own.includes(".") ? own : `${toolName}.${extension}`;
}

export function resultOutcome(toolName: string, result: CallToolResult, limits: ResultLimits): ToolOutcome {
  const texts: string[] = [];
  let artifact: Artifact | undefined;

  /** Keeps the first artifact that fits; anything else is named in the text. */
  const offer = (candidate: Artifact, bytes: number) => {
    if (bytes > limits.maxArtifactBytes) {
      texts.push(
        `[${candidate.filename} (${candidate.mimeType}) omitted: larger than ${limits.maxArtifactBytes} bytes]`,
      );
    } else if (artifact) {
      texts.push(`[Also generated: ${candidate.filename} (${candidate.mimeType}), not shown]`);
    } else {
      artifact = candidate;
    }
  };

  const read = (block: ContentBlock) => {
    switch (block.type) {
      case "text":
        texts.push(block.text);
        return;
      case "image": {
        const mimeType = mimeOf(block.mimeType);
        const extension = IMAGE_TYPES[mimeType];
        if (extension)
          offer(
            { filename: artifactName(toolName, extension), mimeType, content: block.data },
            base64Bytes(block.data),
          );
        else texts.push(`[Image (${block.mimeType}) omitted: not a type the UI shows]`);
        return;
      }
      case "audio":
        texts.push(`[Audio (${block.mimeType}) omitted]`);
        return;
      case "resource_link":
        texts.push(`[Resource: ${block.name} <${block.uri}>]`);
        return;
      case "resource": {
        const { resource } = block;
        const mimeType = mimeOf(resource.mimeType);
        if ("text" in resource) {
          const extension = DOCUMENT_TYPES[mimeType];
          const filename = artifactName(toolName, extension ?? "txt", resource.uri);
          if (extension) offer({ filename, mimeType, content: resource.text }, Buffer.byteLength(resource.text));
          else texts.push(resource.text);
          return;
        }
        const extension = IMAGE_TYPES[mimeType];
        const filename = artifactName(toolName, extension ?? "bin", resource.uri);
        if (extension) offer({ filename, mimeType, content: resource.blob }, base64Bytes(resource.blob));
        else texts.push(`[Binary resource ${resource.uri} (${resource.mimeType ?? "unknown type"}) omitted]`);
        return;
      }
    }
  };

  for (const block of result.content ?? []) read(block);
  if (texts.length === 0 && !artifact && result.structuredContent !== undefined) {
    texts.push(JSON.stringify(result.structuredContent));
  }
  const output = texts.join("\n\n");
  if (result.isError) {
    return toolError(
      "tool_failed",
      `${toolName} failed: ${output || "the server reported an error without a message."}`,
    );
  }
  const outcome = toolOk(output);
  return artifact && outcome.ok ? { ...outcome, artifact } : outcome;
}
