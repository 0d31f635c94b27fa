"use client";

import { Download } from "lucide-react";
import { useEffect, useState } from "react";
import { useTranslations } from "use-intl";
import type { Artifact } from "@/lib/client/types";
import { displayFilename } from "@/lib/text/bidi-controls";
import { Markdown } from "../markdown";

/**
 * A file a tool made. HTML is shown in a sandboxed frame with scripts off,
 * so it cannot touch this page; Markdown is rendered like an answer. Both can be downloaded.
 */
export function ArtifactPreview({ artifact }: { artifact: Artifact }) {
  const t = useTranslations("tools");
  const [href, setHref] = useState<string | null>(null);
  useEffect(() => {
    const url = URL.createObjectURL(new Blob([artifact.content], { type: artifact.mimeType || "text/plain" }));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [artifact]);
  const html = /html/i.test(artifact.mimeType) || /\.html?$/i.test(artifact.filename);
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
      {html ? (
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
