"use client";

import {
  type ClipboardEvent,
  type FormEvent,
  type KeyboardEvent,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
} from "react";
import { useTranslations } from "use-intl";
import { COMPOSER_ID } from "@/components/shell/focus-targets";
import { cx } from "@/lib/client/cx";
import type { ToolGroup } from "@/lib/client/types";
import { AttachmentChips } from "./attachments/attachment-chips";
import type { Attachments } from "./attachments/use-attachments";
import { AttachButton, SendButton, StopButton } from "./composer-buttons";
import { PlanFirstToggle } from "./plan-first-toggle";
import { ResearchToggle } from "./research/research-toggle";
import { ToolGroupsMenu } from "./tool-groups-menu";

const MAX_HEIGHT_PX = 240;

interface ComposerProps {
  /** Sends the text; resolves with an error message to show (the text is then kept), or null. */
  onSend: (text: string) => Promise<string | null>;
  /** Stops the running answer; resolves with an error message to show, or null. */
  onStop: () => Promise<string | null>;
  /** An answer is being written: Stop appears, and what is sent is an interrupt for the running agent. */
  running: boolean;
  stopping?: boolean;
  /** The pending files; without them the composer has no attach button. */
  attachments?: Attachments;
  /** The model the message goes to: an image's chip says when it cannot see images. */
  model?: string | null;
  /** The "Plan first" switch (DAG mode), when the conversation offers it. */
  planFirst?: { on: boolean; onChange: (on: boolean) => void };
  /** The "Research" switch (research mode: an outline first, then a long cited report), when offered. */
  research?: { on: boolean; onChange: (on: boolean) => void };
  /** The tool groups the turns may use (web, each MCP server) and those switched off, when offered. */
  toolGroups?: {
    groups: ToolGroup[];
    disabled: readonly string[];
    onChange: (disabled: string[]) => void;
    /** "Search all my files" (the chat's `searchAllFiles`), when offered. */
    searchAll?: { on: boolean; onChange: (on: boolean) => void };
    /** "Private chat" (the conversation's `private`: no memory read or saved), when offered. */
    privateChat?: { on: boolean; onChange: (on: boolean) => void };
  };
  placeholder?: string;
  autoFocus?: boolean;
}

/** The message box: grows with its text, Enter sends, Shift+Enter breaks the line, files ride along. */
export function Composer({
  onSend,
  onStop,
  running,
  stopping = false,
  attachments,
  model = null,
  planFirst,
  research,
  toolGroups,
  placeholder,
  autoFocus,
}: ComposerProps) {
  const t = useTranslations("composer");
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const uploading = attachments?.uploading ?? false;
  const canSend = text.trim().length > 0 && !sending && !uploading;

  // Grow with the text (every render: cheap, and the box re-renders only when its own state changes).
  useLayoutEffect(() => {
    const element = input.current;
    if (!element) return;
    element.style.height = "auto";
    element.style.height = `${Math.min(element.scrollHeight, MAX_HEIGHT_PX)}px`;
  });

  // Not on touch screens: focusing would pop up the on-screen keyboard on every page.
  useEffect(() => {
    if (autoFocus && window.matchMedia("(pointer: fine)").matches) input.current?.focus();
  }, [autoFocus]);

  const send = async () => {
    if (!canSend) return;
    setSending(true);
    setError(null);
    const failure = await onSend(text);
    setSending(false);
    if (failure) setError(failure);
    else setText("");
    input.current?.focus();
  };

  const stop = async () => {
    setError(await onStop());
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void send();
  };

  // Pasted files (a screenshot, a PDF copied in the file manager) are attached like the paperclip's.
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(event.clipboardData.files);
    if (!attachments || files.length === 0) return;
    event.preventDefault();
    attachments.add(files);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter while an input method composes (Japanese, Chinese…) confirms the composition instead.
    if (event.key !== "Enter" || event.shiftKey || event.nativeEvent.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    void send();
  };

  const hint = uploading ? t("hintUploading") : running ? t("hintRunning") : t("hint");

  return (
    <form onSubmit={onSubmit} className="w-full" aria-label={t("formLabel")}>
      <div
        className={cx(
          "rounded-[1.625rem] border border-border bg-card shadow-sm transition-shadow",
          // A visible ring while anything in the box has focus (the ring colour meets 3:1 on both themes).
          "focus-within:shadow-md focus-within:outline-2 focus-within:outline-offset-2 focus-within:outline-ring",
        )}
      >
        {attachments ? <AttachmentChips items={attachments.items} onRemove={attachments.remove} model={model} /> : null}
        <div className={cx("flex items-end gap-2 p-2", attachments ? "pl-2" : "pl-4")}>
          {attachments ? <AttachButton inputRef={fileInput} onFiles={attachments.add} /> : null}
          {planFirst ? <PlanFirstToggle on={planFirst.on} onChange={planFirst.onChange} /> : null}
          {research ? <ResearchToggle on={research.on} onChange={research.onChange} /> : null}
          {toolGroups && toolGroups.groups.length > 0 ? (
            <ToolGroupsMenu
              groups={toolGroups.groups}
              disabled={toolGroups.disabled}
              onChange={toolGroups.onChange}
              searchAll={toolGroups.searchAll}
              privateChat={toolGroups.privateChat}
            />
          ) : null}
          <textarea
            ref={input}
            id={COMPOSER_ID}
            data-testid="composer-input"
            aria-label={t("inputLabel")}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "composer-error" : "composer-hint"}
            rows={1}
            value={text}
            placeholder={running ? t("placeholderRunning") : (placeholder ?? t("placeholder"))}
            onChange={(event) => {
              setText(event.target.value);
              if (error) setError(null);
            }}
            onKeyDown={onKeyDown}
            onPaste={onPaste}
            className="max-h-60 min-h-10 flex-1 resize-none bg-transparent py-2 text-[0.9375rem] leading-6 outline-none placeholder:text-muted-foreground"
          />
          {running ? <StopButton stopping={stopping} onStop={() => void stop()} /> : null}
          {!running || text.trim() ? (
            <SendButton
              disabled={!canSend}
              disabledReason={uploading ? hint : text.trim() ? null : t("typeFirst")}
              describedBy={uploading ? "composer-hint" : undefined}
              sending={sending}
              interrupting={running}
            />
          ) : null}
        </div>
      </div>
      {error ? (
        <p
          id="composer-error"
          role="alert"
          data-testid="composer-error"
          className="mt-2 rounded-xl border border-red-200 bg-red-50 px-3.5 py-2 text-sm text-red-800 dark:border-red-500/20 dark:bg-red-500/10 dark:text-red-200"
        >
          {error}
        </p>
      ) : (
        <p
          id="composer-hint"
          data-testid="composer-hint"
          className={cx(
            "mt-2 text-center text-xs text-muted-foreground",
            // On phones only the hint that explains a disabled Send shows.
            !uploading && "hidden sm:block",
          )}
        >
          {hint}
        </p>
      )}
    </form>
  );
}
