"use client";

import { ArrowUp, Loader2, Square } from "lucide-react";
import { type FormEvent, type KeyboardEvent, useEffect, useLayoutEffect, useRef, useState } from "react";
import { cx } from "@/lib/client/cx";

const MAX_HEIGHT_PX = 240;

interface ComposerProps {
  /** Sends the text; resolves with an error message to show (the text is then kept), or null. */
  onSend: (text: string) => Promise<string | null>;
  /** Stops the running answer; resolves with an error message to show, or null. */
  onStop: () => Promise<string | null>;
  /** An answer is being written: the send button becomes Stop. */
  running: boolean;
  stopping?: boolean;
  placeholder?: string;
  autoFocus?: boolean;
}

/** The message box: grows with its text, Enter sends, Shift+Enter breaks the line. */
export function Composer({ onSend, onStop, running, stopping = false, placeholder, autoFocus }: ComposerProps) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const canSend = text.trim().length > 0 && !sending && !running;

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

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter while an input method composes (Japanese, Chinese…) confirms the composition instead.
    if (event.key !== "Enter" || event.shiftKey || event.nativeEvent.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    void send();
  };

  return (
    <form onSubmit={onSubmit} className="w-full" aria-label="Send a message">
      <div
        className={cx(
          "flex items-end gap-2 rounded-[1.625rem] border border-border bg-card p-2 pl-4 shadow-sm transition-shadow",
          "focus-within:border-ring/60 focus-within:shadow-md",
        )}
      >
        <textarea
          ref={input}
          data-testid="composer-input"
          aria-label="Message"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "composer-error" : "composer-hint"}
          rows={1}
          value={text}
          placeholder={placeholder ?? "Message your model…"}
          onChange={(event) => {
            setText(event.target.value);
            if (error) setError(null);
          }}
          onKeyDown={onKeyDown}
          className="max-h-60 min-h-10 flex-1 resize-none bg-transparent py-2 text-[0.9375rem] leading-6 outline-none placeholder:text-muted-foreground"
        />
        {running ? (
          <button
            type="button"
            data-testid="stop-button"
            aria-label="Stop the answer"
            title="Stop"
            disabled={stopping}
            onClick={() => void stop()}
            className="grid size-9 shrink-0 place-items-center rounded-full bg-foreground text-background transition-opacity hover:opacity-85 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-50"
          >
            {stopping ? (
              <Loader2 aria-hidden className="size-4 animate-spin" />
            ) : (
              <Square aria-hidden className="size-3.5 fill-current" />
            )}
          </button>
        ) : (
          <button
            type="submit"
            data-testid="send-button"
            aria-label="Send message"
            title="Send (Enter)"
            disabled={!canSend}
            className="grid size-9 shrink-0 place-items-center rounded-full bg-foreground text-background transition-opacity hover:opacity-85 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:bg-muted-foreground/25 disabled:text-background disabled:opacity-100"
          >
            {sending ? (
              <Loader2 aria-hidden className="size-4 animate-spin" />
            ) : (
              <ArrowUp aria-hidden className="size-4.5" />
            )}
          </button>
        )}
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
        <p id="composer-hint" className="mt-2 hidden text-center text-xs text-muted-foreground sm:block">
          Enter to send · Shift+Enter for a new line
        </p>
      )}
    </form>
  );
}
