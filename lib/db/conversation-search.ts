import "server-only";
import { and, asc, eq, exists, or, type SQL, sql } from "drizzle-orm";
import { findMatch, snippetAround, type TextMatch } from "@/lib/text/search-snippet";
import type { Db } from "./client";
import { type Conversation, conversations, messages } from "./schema";

/** Why a conversation is in the results of a sidebar search (docs/api.md, "Conversations"). */
export interface SearchMatch {
  /** Where the query is in the title, if it is. */
  title: { start: number; length: number } | null;
  /** The first message containing the query: an excerpt around it, and the message to open at. */
  message: (TextMatch & { messageId: string }) | null;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

const likePattern = (query: string) => `%${escapeLike(query)}%`;

const contentMatches = (pattern: string) => sql`${messages.content} LIKE ${pattern} ESCAPE '\\'`;

/** Conversations whose title or any message contains `query` (SQLite LIKE: ASCII case folded). */
export function matchesQuery(db: Db, query: string): SQL | undefined {
  const pattern = likePattern(query);
  return or(
    sql`${conversations.title} LIKE ${pattern} ESCAPE '\\'`,
    exists(
      db
        .select({ one: sql`1` })
        .from(messages)
        .where(and(eq(messages.conversationId, conversations.id), contentMatches(pattern))),
    ),
  );
}

/** Where `query` matched in each found conversation: one small query per conversation of the page. */
export function describeMatch(db: Db, conversation: Conversation, query: string): SearchMatch {
  const first = db
    .select({ id: messages.id, content: messages.content })
    .from(messages)
    .where(and(eq(messages.conversationId, conversation.id), contentMatches(likePattern(query))))
    .orderBy(asc(messages.createdAt), asc(sql`rowid`))
    .limit(1)
    .get();
  const snippet = first ? snippetAround(first.content, query) : null;
  return {
    title: findMatch(conversation.title, query),
    message: first && snippet ? { ...snippet, messageId: first.id } : null,
  };
}
