import "server-only";
import type { Db } from "@/lib/db/client";
import type { OwnerId } from "@/lib/db/conversations";
import { attachMemories, createMemory, listMemories } from "@/lib/db/memories";
import { foldForIndex } from "@/lib/library/query";
import type { MemoryWriter } from "@/lib/tools/services";

/**
 * One run's `remember` (docs/architecture.md, "Projects and memory"): saves into the run owner's
 * memory, with the run's conversation, at once — or only proposes, when the owner asks first — and,
 * once the run's answer is stored, names that answer in what it saved (`attach`).
 */
export function runMemoryWriter(
  db: Db,
  { ownerId, conversationId, askBeforeSaving }: { ownerId: OwnerId; conversationId: string; askBeforeSaving: boolean },
): MemoryWriter & { attach(messageId: string): Promise<void> } {
  const saved: string[] = [];
  const same = (a: string, b: string) => foldForIndex(a).trim() === foldForIndex(b).trim();
  return {
    async remember(text) {
      const known = await listMemories(db, { ownerId });
      if (known.some((memory) => same(memory.text, text))) return { status: "known" };
      if (askBeforeSaving) return { status: "proposed", note: { status: "proposed", text } };
      const memory = await createMemory(db, { ownerId, text, conversationId });
      saved.push(memory.id);
      return { status: "saved", note: { status: "saved", id: memory.id, text } };
    },
    attach: (messageId) => attachMemories(db, { ids: saved, conversationId, messageId }),
  };
}
