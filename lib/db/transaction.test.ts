import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { chosenStore } from "@/lib/env-config";
import { tempDbForEachTest } from "@/tests/support/temp-db";
import type { Db } from "./client";
import { createConversation } from "./conversations";
import { conversations } from "./schema";

let db: Db;
tempDbForEachTest((temp) => {
  db = temp.db;
});

const titles = async () =>
  (await db.select({ title: conversations.title }).from(conversations)).map((row) => row.title);

describe("transactions take async bodies", () => {
  it("commits what the body wrote and returns what it returned", async () => {
    const id = await db.transaction(async (tx) => (await createConversation(tx, { ownerId: null, title: "one" })).id);
    expect(await titles()).toEqual(["one"]);
    expect(id).toEqual(expect.any(String));
  });

  it("rolls back everything the body wrote when it throws, and rethrows", async () => {
    const failing = db.transaction(async (tx) => {
      const created = await createConversation(tx, { ownerId: null, title: "gone" });
      await tx.update(conversations).set({ title: "also gone" }).where(eq(conversations.id, created.id));
      throw new Error("refused");
    });
    await expect(failing).rejects.toThrow("refused");
    expect(await titles()).toEqual([]);
  });

  const concurrentWrites = async (order: string[]) => {
    const write = (name: string) =>
      db.transaction(async (tx) => {
        order.push(`${name} begins`);
        await createConversation(tx, { ownerId: null, title: name });
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(`${name} ends`);
      });
    await Promise.all([write("a"), write("b"), write("c")]);
  };

  it("concurrent transactions each commit whole", async () => {
    await concurrentWrites([]);
    expect((await titles()).sort()).toEqual(["a", "b", "c"]);
  });

  // One connection, so one transaction at a time; PostgreSQL's run side by side, each on a connection of its own.
  it.runIf(chosenStore() === "sqlite")("SQLite runs concurrent transactions one after the other", async () => {
    const order: string[] = [];
    await concurrentWrites(order);
    expect(order).toEqual(["a begins", "a ends", "b begins", "b ends", "c begins", "c ends"]);
  });

  it("a transaction that failed does not stop the next one", async () => {
    const failed = db.transaction(async () => {
      throw new Error("first");
    });
    const next = db.transaction(async (tx) => createConversation(tx, { ownerId: null, title: "next" }));
    await expect(failed).rejects.toThrow("first");
    await next;
    expect(await titles()).toEqual(["next"]);
  });

  it("a transaction begun inside a body is part of it: rolled back with it", async () => {
    const failing = db.transaction(async (tx) => {
      await tx.transaction(async (inner) => createConversation(inner, { ownerId: null, title: "inner" }));
      throw new Error("outer fails");
    });
    await expect(failing).rejects.toThrow("outer fails");
    expect(await titles()).toEqual([]);
  });

  it("a statement from outside the body waits for the transaction: a rollback never takes another request's write with it", async () => {
    // Another request's writes, one after the other, while a transaction's body is going.
    let elsewhere: Promise<unknown> = Promise.resolve();
    for (const title of ["e1", "e2", "e3"]) {
      elsewhere = elsewhere.then(() => createConversation(db, { ownerId: null, title }));
    }
    const failing = db.transaction(async (tx) => {
      await createConversation(tx, { ownerId: null, title: "inside" });
      await tx.select().from(conversations);
      await tx.select().from(conversations);
      throw new Error("refused");
    });
    await Promise.all([elsewhere, expect(failing).rejects.toThrow("refused")]);
    expect((await titles()).sort()).toEqual(["e1", "e2", "e3"]);
  });

  it("a select of chosen columns made while a transaction holds the queue waits and reads its rows", async () => {
    await createConversation(db, { ownerId: null, title: "before" });
    const writing = db.transaction(async (tx) => {
      await createConversation(tx, { ownerId: null, title: "inside" });
    });
    // Drizzle maps chosen columns by calling the statement's `values` from within `all`.
    const read = db
      .select({ title: conversations.title })
      .from(conversations)
      .then((rows) => rows);
    await writing;
    expect((await read).map((row) => row.title).sort()).toEqual(["before", "inside"]);
  });

  it("a transaction asked for with the plain handle inside a body is part of it, not queued behind it", async () => {
    await db.transaction(async () => {
      await db.transaction(async (inner) => createConversation(inner, { ownerId: null, title: "nested" }));
    });
    expect(await titles()).toEqual(["nested"]);
  });
});
