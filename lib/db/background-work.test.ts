import { describe, expect, it } from "vitest";
import { tempDb } from "@/tests/support/temp-db";
import { closeDb, trackBackground } from "./client";
import { createConversation } from "./conversations";

/** Work that outlives its request (the library indexing a stored file) is waited for by closeDb. */

describe("background work on a handle", () => {
  it("closing the handle waits for it, so it never closes under the work's open transaction", async () => {
    const temp = await tempDb();
    let wrote = false;
    const work = temp.db.transaction(async (tx) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await createConversation(tx, { ownerId: null, title: "late" });
      wrote = true;
    });
    trackBackground(temp.db, work);
    await closeDb(temp.db);
    expect(wrote).toBe(true);
    await temp.cleanup();
  });

  it("a failed piece of work does not fail the close", async () => {
    const temp = await tempDb();
    trackBackground(temp.db, Promise.reject(new Error("indexing failed")));
    await expect(closeDb(temp.db)).resolves.toBeUndefined();
    await temp.cleanup();
  });
});
