"use client";

import { Download, Loader2, X } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { BUTTON_PRIMARY, BUTTON_SECONDARY, INPUT, InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import { api, isAbort } from "@/lib/client/api";
import { type ErrorInfo, toErrorInfo } from "@/lib/client/error-text";
import { formatBytes } from "@/lib/client/format";
import type { PullEvent } from "@/lib/protocol/pull-events";
import { ServerChoice } from "./ollama-servers";

type Progress = Extract<PullEvent, { type: "progress" }>;
/** `server`: which one the events are from, when the pull goes to several. */
type Pulling = { model: string; status: string; progress: Progress | null; server?: string };

/**
 * Pulls a model by name with a live progress bar (bytes, percent, speed) and Cancel; with several
 * Ollama servers, onto the one chosen or all of them.
 */
export function PullModel({ onPulled, servers }: { onPulled: () => void; servers: string[] }) {
  const t = useTranslations("modelAdmin");
  const errorText = useErrorText();
  const inputId = useId();
  const [name, setName] = useState("");
  const [target, setTarget] = useState("");
  const [pulling, setPulling] = useState<Pulling | null>(null);
  const [error, setError] = useState<(ErrorInfo & { server?: string }) | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [cancelled, setCancelled] = useState<string | null>(null);
  const cancel = useRef<AbortController | null>(null);

  // Leaving the page cancels the download (the server closes Ollama's request).
  useEffect(() => () => cancel.current?.abort(), []);

  const pull = async (model: string) => {
    const aborter = new AbortController();
    cancel.current = aborter;
    setError(null);
    setDone(null);
    setCancelled(null);
    setPulling({ model, status: "", progress: null });
    try {
      for await (const event of await api.pullModel(model, aborter.signal, target || undefined)) {
        if (event.type === "error") setError(event);
        else if (event.type === "success") {
          setDone(model);
          setName("");
          onPulled();
        } else if (event.type === "status") {
          setPulling((now) => now && { ...now, status: event.status, server: event.server });
        } else setPulling((now) => now && { ...now, progress: event, server: event.server });
      }
    } catch (caught) {
      if (isAbort(caught)) setCancelled(model);
      else {
        setError(toErrorInfo(caught));
      }
    } finally {
      cancel.current = null;
      setPulling(null);
    }
  };

  const progress = pulling?.progress;
  const percent = progress && progress.total > 0 ? Math.floor((progress.completed / progress.total) * 100) : null;
  return (
    <div className="space-y-3 rounded-xl border border-border p-4" data-testid="pull-model">
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          const model = name.trim();
          if (model && !pulling) void pull(model);
        }}
      >
        <div className="min-w-[12rem] flex-1">
          <label htmlFor={inputId} className="mb-1 block text-sm font-medium">
            {t("pullLabel")}
          </label>
          <input
            id={inputId}
            data-testid="pull-name"
            className={INPUT}
            value={name}
            onChange={(event) => setName(event.target.value)}
            placeholder="llama3.2, qwen3:8b, hf.co/…"
            autoComplete="off"
            spellCheck={false}
            maxLength={300}
            disabled={pulling !== null}
          />
        </div>
        <ServerChoice
          label={t("pullTarget")}
          allLabel={t("allServers")}
          servers={servers}
          value={target}
          onChange={setTarget}
          disabled={pulling !== null}
          testId="pull-server"
        />
        {/* Keyed apart: were the DOM button reused, the click on Cancel would end as a click on Pull
            (its type turns to submit before the click's default action) and start the pull again. */}
        {pulling ? (
          <button
            key="cancel"
            type="button"
            className={BUTTON_SECONDARY}
            data-testid="pull-cancel"
            onClick={() => cancel.current?.abort()}
          >
            <X aria-hidden className="size-4" />
            {t("cancel")}
          </button>
        ) : (
          <button key="pull" type="submit" className={BUTTON_PRIMARY} data-testid="pull-start" disabled={!name.trim()}>
            <Download aria-hidden className="size-4" />
            {t("pull")}
          </button>
        )}
      </form>
      {pulling ? (
        <div className="space-y-1.5" data-testid="pull-progress">
          <div className="flex flex-wrap items-center justify-between gap-x-3 text-sm">
            <span className="flex min-w-0 items-center gap-2">
              <Loader2 aria-hidden className="size-4 shrink-0 animate-spin" />
              <span className="truncate font-medium">{pulling.model}</span>
              <span className="text-muted-foreground">{pulling.status}</span>
              {pulling.server ? (
                <span className="truncate font-mono text-xs text-muted-foreground" data-testid="pull-server-now">
                  {pulling.server}
                </span>
              ) : null}
            </span>
            {progress ? (
              <span className="font-mono text-xs tabular-nums text-muted-foreground" data-testid="pull-bytes">
                {t("bytesOf", { done: formatBytes(progress.completed), total: formatBytes(progress.total) })}
                {percent === null ? "" : ` · ${percent}%`}
                {progress.bytesPerSecond ? ` · ${t("speed", { speed: formatBytes(progress.bytesPerSecond) })}` : ""}
              </span>
            ) : null}
          </div>
          <div
            role="progressbar"
            aria-label={t("progressLabel", { model: pulling.model })}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent ?? undefined}
            className="h-2 overflow-hidden rounded-full bg-muted"
          >
            <div
              className="h-full rounded-full bg-sky-600 transition-[width] dark:bg-sky-400"
              style={{ width: `${percent ?? 0}%` }}
            />
          </div>
          {progress ? (
            <p className="text-xs text-muted-foreground">{t("layers", { count: progress.layers.length })}</p>
          ) : null}
        </div>
      ) : null}
      {done ? (
        <p role="status" className="text-sm text-emerald-700 dark:text-emerald-300" data-testid="pull-done">
          {t("pulled", { model: done })}
        </p>
      ) : null}
      {cancelled ? (
        <p role="status" className="text-sm text-muted-foreground" data-testid="pull-cancelled">
          {t("cancelled", { model: cancelled })}
        </p>
      ) : null}
      {error ? (
        <InlineError data-testid="pull-error" data-code={error.code}>
          {error.server ? `${error.server}: ` : null}
          {errorText(error)}
        </InlineError>
      ) : null}
    </div>
  );
}
