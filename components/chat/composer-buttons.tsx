import { ArrowUp, Loader2, Paperclip, Square } from "lucide-react";
import { type RefObject, useId } from "react";
import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";

const ROUND =
  "grid size-9 shrink-0 place-items-center rounded-full transition-opacity focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring";

/** File types the server accepts: PDFs, images, Word documents and text files. */
const ACCEPT = [
  "application/pdf,.pdf,image/png,image/jpeg,image/gif,image/webp",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document,.docx",
  "text/plain,.txt,text/markdown,.md,.markdown,text/csv,.csv,application/json,.json,text/html,.html,.htm",
].join(",");

/** The paperclip and its hidden file input. */
export function AttachButton({
  inputRef,
  onFiles,
}: {
  inputRef: RefObject<HTMLInputElement | null>;
  onFiles: (files: File[]) => void;
}) {
  const t = useTranslations("attachments");
  const id = useId();
  return (
    <>
      <input
        ref={inputRef}
        id={id}
        type="file"
        multiple
        accept={ACCEPT}
        data-testid="file-input"
        className="sr-only"
        tabIndex={-1}
        aria-hidden
        onChange={(event) => {
          const files = Array.from(event.target.files ?? []);
          event.target.value = "";
          if (files.length > 0) onFiles(files);
        }}
      />
      <button
        type="button"
        data-testid="attach-button"
        aria-label={t("attachLabel")}
        title={t("attachTitle")}
        onClick={() => inputRef.current?.click()}
        className={cx(ROUND, "text-muted-foreground hover:bg-muted hover:text-foreground")}
      >
        <Paperclip aria-hidden className="size-4.5" />
      </button>
    </>
  );
}

export function StopButton({ stopping, onStop }: { stopping: boolean; onStop: () => void }) {
  const t = useTranslations("composer");
  return (
    <button
      type="button"
      data-testid="stop-button"
      aria-label={t("stopLabel")}
      title={t("stopTitle")}
      disabled={stopping}
      onClick={onStop}
      className={cx(ROUND, "bg-foreground text-background hover:opacity-85 disabled:opacity-50")}
    >
      {stopping ? (
        <Loader2 aria-hidden className="size-4 animate-spin" />
      ) : (
        <Square aria-hidden className="size-3.5 fill-current" />
      )}
    </button>
  );
}

export function SendButton({
  disabled,
  disabledReason = null,
  describedBy,
  sending,
  interrupting,
}: {
  disabled: boolean;
  /** Why it cannot send now, said on hover and to screen readers. */
  disabledReason?: string | null;
  describedBy?: string;
  sending: boolean;
  /** The agent is working: what is sent becomes an interrupt for it. */
  interrupting: boolean;
}) {
  const t = useTranslations("composer");
  const label = interrupting ? t("interruptLabel") : t("sendLabel");
  const title = disabled && disabledReason ? disabledReason : interrupting ? t("interruptTitle") : t("sendTitle");
  return (
    <button
      type="submit"
      data-testid="send-button"
      aria-label={label}
      title={title}
      aria-describedby={describedBy}
      disabled={disabled}
      className={cx(
        ROUND,
        "bg-foreground text-background hover:opacity-85 disabled:bg-muted-foreground/25 disabled:text-background disabled:opacity-100",
        interrupting && "border border-border bg-background text-foreground",
      )}
    >
      {sending ? <Loader2 aria-hidden className="size-4 animate-spin" /> : <ArrowUp aria-hidden className="size-4.5" />}
    </button>
  );
}
