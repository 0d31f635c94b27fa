import "server-only";
import { and, asc, eq, inArray } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import type { Interrupt } from "@/lib/protocol/run-events";
import type { Db } from "./client";
import { insertMessage } from "./messages";
import { type HeldInterrupt, interrupts, runs } from "./schema";

/**
 * Interrupts held on the server (docs/architecture.md, "The run protocol"): stored when the run
 * accepts them, removed when they become part of the conversation — taken by their run, sent as a
 * turn of their own — or discarded.
 */

export async function storeInterrupt(
  db: Db,
  { interrupt, conversationId, runId }: { interrupt: Interrupt; conversationId: string; runId: string },
): Promise<void> {
  await db
    .insert(interrupts)
    .values({ id: interrupt.id, conversationId, runId, text: interrupt.text, createdAt: Date.now() });
}

/** The run took it: it becomes a user message of that run (under its question), under its id. */
export async function takeInterrupt(
  db: Db,
  {
    interrupt,
    conversationId,
    runId,
    parentId,
  }: { interrupt: Interrupt; conversationId: string; runId: string; parentId: string },
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(interrupts).where(eq(interrupts.id, interrupt.id));
    await insertMessage(tx, {
      id: interrupt.id,
      conversationId,
      parentId,
      role: "user",
      content: interrupt.text,
      runId,
    });
  });
}

/** An interrupt as a conversation shows it: `unsent` once its run is over (it was not taken). */
export type HeldInterruptView = Pick<HeldInterrupt, "id" | "runId" | "text" | "createdAt"> & { unsent: boolean };

/** The conversation's held interrupts, oldest first. */
export async function listHeldInterrupts(
  db: Db,
  { conversationId }: { conversationId: string },
): Promise<HeldInterruptView[]> {
  const rows = await db
    .select({
      id: interrupts.id,
      runId: interrupts.runId,
      text: interrupts.text,
      createdAt: interrupts.createdAt,
      runStatus: runs.status,
    })
    .from(interrupts)
    .leftJoin(runs, eq(runs.id, interrupts.runId))
    .where(eq(interrupts.conversationId, conversationId))
    .orderBy(asc(interrupts.createdAt));
  return rows.map(({ runStatus, ...held }) => ({ ...held, unsent: runStatus !== "running" }));
}

/**
 * The unsent interrupts `ids` of the conversation, in the order given, for a turn that sends them;
 * any other id (unknown, queued, another conversation's) is refused before anything changes.
 */
export async function unsentInterrupts(db: Db, { conversationId, ids }: { conversationId: string; ids: string[] }) {
  const held = new Map(
    (await listHeldInterrupts(db, { conversationId })).map((interrupt) => [interrupt.id, interrupt]),
  );
  return ids.map((id) => {
    const interrupt = held.get(id);
    if (!interrupt?.unsent) {
      throw new AppError("bad_request:interrupt", `Follow-up ${id} is not an unsent message of this conversation.`);
    }
    return interrupt;
  });
}

/** They are part of the conversation now (sent as a turn): no longer held. */
export async function releaseInterrupts(db: Db, { ids }: { ids: string[] }): Promise<void> {
  if (ids.length > 0) await db.delete(interrupts).where(inArray(interrupts.id, ids));
}

/** The user discards an unsent interrupt; a queued one (its run still going) or an unknown one is refused. */
export async function discardInterrupt(
  db: Db,
  { conversationId, id }: { conversationId: string; id: string },
): Promise<void> {
  const held = (await listHeldInterrupts(db, { conversationId })).find((interrupt) => interrupt.id === id);
  if (!held) throw new AppError("not_found:interrupt", `Follow-up ${id} not found.`);
  if (!held.unsent) {
    throw new AppError("conflict:interrupt_queued", "The running answer may still read this follow-up; stop it first.");
  }
  await db.delete(interrupts).where(and(eq(interrupts.id, id), eq(interrupts.conversationId, conversationId)));
}
