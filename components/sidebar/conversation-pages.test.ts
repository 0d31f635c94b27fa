import { describe, expect, it } from "vitest";
import type { ConversationSummary } from "@/lib/client/types";
import { conversationSummary } from "@/tests/support/conversation-summary";
import {
  type ConversationPage,
  flattenPages,
  followInProjectPages,
  listStatus,
  removeFromPages,
  replaceInPages,
  upsertInPages,
} from "./conversation-pages";

const conversation = (
  id: string,
  updatedAt: number,
  flags: { pinned?: boolean; archived?: boolean; projectId?: string | null } = {},
) => conversationSummary({ id, title: `Chat ${id}`, updatedAt, ...flags });

const page = (
  conversations: ConversationSummary[],
  nextCursor: string | null = null,
  q = "",
  archived = false,
): ConversationPage => ({ q, archived, conversations, nextCursor });

const ids = (pages: ConversationPage[] | undefined) => flattenPages(pages).map((c) => c.id);

describe("sidebar list pages", () => {
  it("lists a conversation once when it moved to a later page between page loads", () => {
    const pages = [
      page([conversation("a", 5), conversation("b", 4)], "x"),
      page([conversation("b", 4), conversation("c", 1)]),
    ];
    expect(ids(pages)).toEqual(["a", "b", "c"]);
  });

  it("puts a new or updated conversation first, newest first, and takes it out of later pages", () => {
    const pages = [page([conversation("a", 5), conversation("b", 4)], "x"), page([conversation("c", 1)])];
    expect(ids(upsertInPages(pages, conversation("n", 9)))).toEqual(["n", "a", "b", "c"]);
    const moved = upsertInPages(pages, conversation("c", 6));
    expect(moved?.map((p) => p.conversations.map((c) => c.id))).toEqual([["c", "a", "b"], []]);
  });

  it("keeps pinned conversations first when one is pinned, unpinned or updated", () => {
    const pages = [page([conversation("p", 1, { pinned: true }), conversation("a", 5), conversation("b", 4)])];
    expect(ids(upsertInPages(pages, conversation("b", 4, { pinned: true })))).toEqual(["b", "p", "a"]);
    expect(ids(upsertInPages(pages, conversation("n", 9)))).toEqual(["p", "n", "a", "b"]);
    expect(ids(upsertInPages(pages, conversation("p", 1)))).toEqual(["a", "b", "p"]);
  });

  it("an archived conversation leaves the list, and joins only the archive filter's list", () => {
    const listed = [page([conversation("a", 5), conversation("b", 4)], "x"), page([conversation("c", 1)])];
    expect(ids(upsertInPages(listed, conversation("c", 1, { archived: true })))).toEqual(["a", "b"]);
    const archive = [page([conversation("z", 3, { archived: true })], null, "", true)];
    expect(ids(upsertInPages(archive, conversation("c", 1, { archived: true })))).toEqual(["z", "c"]);
    expect(ids(upsertInPages(archive, conversation("z", 3)))).toEqual([]);
  });

  it("leaves a list that is not loaded yet for the server to fill", () => {
    expect(upsertInPages(undefined, conversation("n", 9))).toBeUndefined();
  });

  it("keeps a renamed conversation in its place", () => {
    const pages = [page([conversation("a", 5), conversation("b", 4)])];
    const renamed = replaceInPages(pages, { ...conversation("b", 4), title: "Renamed" });
    expect(flattenPages(renamed).map((c) => c.title)).toEqual(["Chat a", "Renamed"]);
  });

  it("drops a deleted conversation from whichever page holds it", () => {
    const pages = [page([conversation("a", 5)], "x"), page([conversation("b", 4)])];
    expect(ids(removeFromPages(pages, "b"))).toEqual(["a"]);
  });
});

describe("a project group's own pages", () => {
  const inP = (id: string, updatedAt: number, flags: { pinned?: boolean; archived?: boolean } = {}) =>
    conversation(id, updatedAt, { ...flags, projectId: "p" });
  const pages = [page([inP("a", 5), inP("b", 4)], "x"), page([inP("c", 1)])];

  it("takes in a chat created in or moved into the project, newest first", () => {
    expect(ids(followInProjectPages(pages, "p", inP("n", 9)))).toEqual(["n", "a", "b", "c"]);
    expect(ids(followInProjectPages(pages, "p", inP("c", 6)))).toEqual(["c", "a", "b"]);
  });

  it("lets go of a chat moved out of the project, into another one, or archived", () => {
    expect(ids(followInProjectPages(pages, "p", conversation("b", 4)))).toEqual(["a", "c"]);
    expect(ids(followInProjectPages(pages, "p", conversation("c", 1, { projectId: "q" })))).toEqual(["a", "b"]);
    expect(ids(followInProjectPages(pages, "p", inP("a", 5, { archived: true })))).toEqual(["b", "c"]);
  });

  it("leaves another project's chat out and an unloaded group for the server to fill", () => {
    expect(ids(followInProjectPages(pages, "p", conversation("z", 9, { projectId: "q" })))).toEqual(["a", "b", "c"]);
    expect(followInProjectPages(undefined, "p", inP("n", 9))).toBeUndefined();
  });
});

describe("sidebar list status", () => {
  const loaded = [page([conversation("a", 5)], null, "")];

  it("is loading until the first page arrives, and an error when that read fails", () => {
    expect(listStatus({ pages: undefined, query: "", archived: false, failed: false })).toBe("loading");
    expect(listStatus({ pages: undefined, query: "", archived: false, failed: true })).toBe("error");
  });

  it("keeps the loaded list on screen when a refresh or load-more fails", () => {
    expect(listStatus({ pages: loaded, query: "", archived: false, failed: true })).toBe("ready");
  });

  it("shows the previous results while a new search loads, and the search's error if it fails", () => {
    expect(listStatus({ pages: loaded, query: "pasta", archived: false, failed: false })).toBe("ready");
    expect(listStatus({ pages: loaded, query: "pasta", archived: false, failed: true })).toBe("error");
  });

  it("shows the other list's error, not its conversations, when switching the archive filter fails", () => {
    expect(listStatus({ pages: loaded, query: "", archived: true, failed: true })).toBe("error");
  });
});
