import "server-only";
import type { Db } from "@/lib/db/client";
import type { OwnerId } from "@/lib/db/conversations";
import { createMemory, listMemories, nameRunAnswer } from "@/lib/db/memories";
import { foldForIndex } from "@/lib/library/query";
import type { MemoryWriter } from "@/lib/tools/services";

/**
 * One run's `remember` (docs/architecture.md, "Projects and memory"): saves into the run owner's
 * memory, with the run, at once — or only proposes, when the owner asks first — and, once the run's
 * answer is stored, names that answer in what was saved from the run (`attach`), by the run or by
 * the user saving a proposal meanwhile.
 */
export function runMemoryWriter(
  db: Db,
  { ownerId, runId, askBeforeSaving }: { ownerId: OwnerId; runId: string; askBeforeSaving: boolean },
): MemoryWriter & { attach(): Promise<void> } {
  const same = (a: string, b: string) => foldForIndex(a).trim() === foldForIndex(b).trim();
  return {
    async remember(text) {
      const known = await listMemories(db, { ownerId });
      if (known.some((memory) => same(memory.text, text))) return { status: "known" };
      if (askBeforeSaving) return { status: "proposed", note: { status: "proposed", text } };
      const memory = await createMemory(db, { ownerId, text, runId });
      return { status: "saved", note: { status: "saved", id: memory.id, text } };
    },
    attach: async () => {
      await nameRunAnswer(db, { runId });
    },
  };
}
