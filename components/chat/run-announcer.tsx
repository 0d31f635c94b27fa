"use client";

import type { LiveTurn } from "./live-turn";

const MESSAGES = {
  streaming: "",
  complete: "The answer is complete.",
  stopped: "The answer was stopped.",
  error: "The answer failed.",
} as const;

/**
 * Tells screen-reader users when the live answer ends; the streaming text itself is not announced
 * token by token (that would be unbearable), they read it once it is done.
 */
export function RunAnnouncer({ turn }: { turn: LiveTurn | undefined }) {
  const text = turn ? MESSAGES[turn.run.status] + (turn.run.error ? ` ${turn.run.error}` : "") : "";
  return (
    <p aria-live="polite" className="sr-only">
      {text}
    </p>
  );
}
