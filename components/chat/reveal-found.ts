/**
 * A search hit opened again while its message is already the one shown: the URL does not change,
 * so the sidebar asks the message list to bring the message back into view by this event.
 */
const REVEAL_FOUND = "ollama-web:reveal-found";

export function revealFoundAgain(): void {
  window.dispatchEvent(new Event(REVEAL_FOUND));
}

export function onRevealFoundAgain(reveal: () => void): () => void {
  window.addEventListener(REVEAL_FOUND, reveal);
  return () => window.removeEventListener(REVEAL_FOUND, reveal);
}
