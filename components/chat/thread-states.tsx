import { MessageSquareDashed, SearchX, ServerCrash } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";

/** Placeholder rows while a conversation loads. */
export function ThreadLoading() {
  return (
    <div
      role="status"
      aria-label="Loading conversation"
      className="mx-auto w-full max-w-3xl flex-1 space-y-8 px-6 pt-8"
    >
      <div className="ml-auto h-10 w-2/5 animate-pulse rounded-3xl bg-muted" />
      <div className="space-y-2.5">
        <div className="h-3.5 w-11/12 animate-pulse rounded bg-muted" />
        <div className="h-3.5 w-4/5 animate-pulse rounded bg-muted" />
        <div className="h-3.5 w-3/5 animate-pulse rounded bg-muted" />
      </div>
    </div>
  );
}

function Centered({ icon, title, children }: { icon: ReactNode; title: string; children?: ReactNode }) {
  return (
    <div className="flex flex-1 flex-col items-center justify-center gap-3 px-6 text-center">
      <span className="grid size-11 place-items-center rounded-full bg-muted text-muted-foreground">{icon}</span>
      <h2 className="text-base font-medium">{title}</h2>
      {children ? <div className="max-w-sm text-sm text-muted-foreground">{children}</div> : null}
    </div>
  );
}

export function ThreadEmpty() {
  return (
    <Centered icon={<MessageSquareDashed aria-hidden className="size-5" />} title="No messages yet">
      Ask anything below to start this conversation.
    </Centered>
  );
}

export function ThreadNotFound() {
  return (
    <Centered icon={<SearchX aria-hidden className="size-5" />} title="This conversation does not exist">
      It may have been deleted.{" "}
      <Link href="/" className="font-medium text-foreground underline underline-offset-2">
        Start a new chat
      </Link>
      .
    </Centered>
  );
}

export function ThreadError({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <Centered icon={<ServerCrash aria-hidden className="size-5" />} title="Could not load this conversation">
      <p role="alert">{message}</p>
      <button
        type="button"
        onClick={onRetry}
        className="mt-3 rounded-lg border border-border px-3 py-1.5 font-medium text-foreground hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
      >
        Try again
      </button>
    </Centered>
  );
}
