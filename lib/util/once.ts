/** `action` made safe to call again: only the first call runs it (a release called twice releases once). */
export function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}
