"use client";

import { Download, FileText, MessageSquare, X } from "lucide-react";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import useSWR from "swr";
import { useTranslations } from "use-intl";
import { useProjects } from "@/components/projects/use-projects";
import { IconButton } from "@/components/ui/icon-button";
import { api, fileUrl, projectFileUrl } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { FileSearchResult } from "@/lib/client/types";
import { displayFilename, withoutBidiControls } from "@/lib/text/bidi-controls";
import { Highlighted } from "./highlighted";

type Hit = FileSearchResult["hits"][number];

/**
 * The sidebar search's hits inside the user's files (docs/architecture.md, "The library index"):
 * each file's passage with the words marked; a hit opens the passage at its place in the file (its
 * page, or its position), with the file's download and the chat it belongs to.
 */
export function FileHits({ query }: { query: string }) {
  const t = useTranslations("sidebar");
  const { data } = useSWR(query ? cacheKeys.fileSearch(query) : null, () => api.searchFiles(query), {
    keepPreviousData: true,
  });
  const [open, setOpen] = useState<Hit | null>(null);
  const hits = data?.hits ?? [];
  if (!query || hits.length === 0) return null;
  return (
    <section aria-labelledby="file-hits-heading" className="mt-3" data-testid="file-hits">
      <h2 id="file-hits-heading" className="px-2 pt-1 pb-1 text-xs font-medium text-muted-foreground">
        {t("inFiles")}
      </h2>
      <ul className="space-y-px">
        {hits.map((hit) => (
          <li key={`${hit.fileId}:${hit.start}`}>
            <button
              type="button"
              data-testid="file-hit"
              onClick={() => setOpen(hit)}
              className="flex w-full items-start gap-2 rounded-lg px-2.5 py-2 text-left text-sm text-foreground/85 outline-none hover:bg-muted/70 focus-visible:ring-2 focus-visible:ring-ring"
            >
              <FileText aria-hidden className="mt-0.5 size-3.5 shrink-0 text-muted-foreground" />
              <span className="min-w-0 flex-1">
                <span className="block truncate">
                  {displayFilename(hit.filename)}
                  <span className="text-xs text-muted-foreground">
                    {" · "}
                    {hit.page !== null ? t("filePage", { page: hit.page }) : t("filePosition", { at: hit.start })}
                  </span>
                </span>
                {hit.snippet ? (
                  <span className="block truncate text-xs text-muted-foreground">
                    <Highlighted {...hit.snippet} />
                  </span>
                ) : null}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {data?.limited ? (
        <p className="px-2.5 pt-1 text-xs text-muted-foreground" data-testid="file-hits-limited">
          {t("inFilesLimited")}
        </p>
      ) : null}
      {open ? <PassageDialog hit={open} onClose={() => setOpen(null)} /> : null}
    </section>
  );
}

/** The passage a hit found, at its place in the file, in a native modal dialog. */
function PassageDialog({ hit, onClose }: { hit: Hit; onClose: () => void }) {
  const t = useTranslations("sidebar");
  const dialog = useRef<HTMLDialogElement>(null);
  const { projects } = useProjects();

  useEffect(() => {
    if (!dialog.current?.open) dialog.current?.showModal();
    dialog.current?.querySelector("mark")?.scrollIntoView({ block: "center" });
  }, []);

  const name = displayFilename(hit.filename);
  const download = hit.projectId
    ? projectFileUrl(hit.projectId, hit.fileId)
    : hit.conversationId
      ? fileUrl(hit.conversationId, hit.fileId)
      : null;
  const project = projects.find((candidate) => candidate.id === hit.projectId);
  return (
    <dialog
      ref={dialog}
      onClose={onClose}
      aria-labelledby="passage-title"
      data-testid="file-passage"
      className="m-auto max-h-[min(40rem,calc(100dvh-2rem))] w-[min(44rem,calc(100vw-1.5rem))] flex-col rounded-2xl border border-border bg-background p-0 text-foreground shadow-2xl backdrop:bg-black/50 open:flex"
    >
      <div className="flex items-center gap-2 border-b border-border px-4 py-3">
        <h2 id="passage-title" className="min-w-0 flex-1 truncate text-sm font-semibold" title={name}>
          {name}
          <span className="font-normal text-muted-foreground">
            {" · "}
            {hit.page !== null ? t("filePage", { page: hit.page }) : t("filePosition", { at: hit.start })}
          </span>
        </h2>
        {download ? (
          <a
            href={download}
            download={hit.filename}
            aria-label={t("downloadFile", { name })}
            title={t("downloadFile", { name })}
            className="inline-flex size-8 items-center justify-center rounded-lg text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
          >
            <Download aria-hidden className="size-4" />
          </a>
        ) : null}
        <IconButton label={t("closePassage")} onClick={() => dialog.current?.close()}>
          <X aria-hidden className="size-4" />
        </IconButton>
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto px-4 py-3">
        <p data-testid="file-passage-text" className="text-sm leading-relaxed break-words whitespace-pre-wrap">
          {hit.match ? <Highlighted text={hit.text} {...hit.match} /> : withoutBidiControls(hit.text)}
        </p>
      </div>
      <div className="flex items-center gap-2 border-t border-border px-4 py-2.5 text-sm text-muted-foreground">
        <MessageSquare aria-hidden className="size-4 shrink-0" />
        {hit.conversationId ? (
          <Link href={`/c/${hit.conversationId}`} className="font-medium text-foreground hover:underline">
            {t("openChat")}
          </Link>
        ) : (
          <span>{t("inProjectFiles", { name: project?.name ?? "" })}</span>
        )}
      </div>
    </dialog>
  );
}
