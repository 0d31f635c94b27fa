"use client";

import { Download } from "lucide-react";
import { useEffect, useState } from "react";
import { useTranslations } from "use-intl";
import type { Artifact } from "@/lib/client/types";
import { displayFilename } from "@/lib/text/bidi-controls";
import { Markdown } from "../markdown";

/** The image types the server lets through as artifacts; their `content` is base64. */
const IMAGE = /^image\/(png|jpeg|gif|webp)$/;

/** An artifact's bytes: the text of a document, the decoded base64 of an image. */
function artifactBlob(artifact: Artifact): Blob {
  const type = artifact.mimeType || "text/plain";
  if (!IMAGE.test(artifact.mimeType)) return new Blob([artifact.content], { type });
  return new Blob([Uint8Array.from(atob(artifact.content), (char) => char.charCodeAt(0))], { type });
}

/**
 * A file a tool made. HTML is shown in a sandboxed frame with scripts off, so it cannot touch this
 * page; Markdown is rendered like an answer; an image is an `<img>` of its data. All can be downloaded.
 */
export function ArtifactPreview({ artifact }: { artifact: Artifact }) {
  const t = useTranslations("tools");
  const [href, setHref] = useState<string | null>(null);
  useEffect(() => {
    const url = URL.createObjectURL(artifactBlob(artifact));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [artifact]);
  const image = IMAGE.test(artifact.mimeType);
  const html = !image && (/html/i.test(artifact.mimeType) || /\.html?$/i.test(artifact.filename));
  const name = displayFilename(artifact.filename);

  return (
    <section data-testid="tool-artifact">
      <div className="mb-1 flex items-center gap-2">
        <h4 className="text-xs font-medium text-muted-foreground">{t("preview", { name })}</h4>
        {href ? (
          <a
            href={href}
            download={name}
            className="ml-auto inline-flex items-center gap-1 rounded-md px-1.5 py-0.5 text-xs text-muted-foreground hover:bg-muted hover:text-foreground"
          >
            <Download aria-hidden className="size-3.5" />
            {t("download")}
          </a>
        ) : null}
      </div>
      {image ? (
        // A data: URL draws at once, on the server's HTML too; the CSP allows img-src data:.
        // biome-ignore lint/performance/noImgElement: a tool's image is data in the page, nothing next/image could optimise
        <img
          src={`data:${artifact.mimeType};base64,${artifact.content}`}
          alt={t("previewOf", { name })}
          className="max-h-96 max-w-full rounded-lg border border-border bg-white object-contain"
        />
      ) : html ? (
        <iframe
          title={t("previewOf", { name })}
          sandbox=""
          srcDoc={artifact.content}
          className="h-80 w-full rounded-lg border border-border bg-white"
        />
      ) : (
        <div className="max-h-96 overflow-auto rounded-lg border border-border px-4 py-3">
          <Markdown text={artifact.content} streaming={false} />
        </div>
      )}
    </section>
  );
}
