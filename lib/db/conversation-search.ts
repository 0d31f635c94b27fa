import "server-only";
import { and, asc, eq, exists, or, type SQL, sql } from "drizzle-orm";
import { findMatch, snippetAround, type TextMatch } from "@/lib/text/search-snippet";
import type { Db } from "./client";
import { insertionOrder, likeIgnoringCase } from "./portable-sql";
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

const contentMatches = (pattern: string) => likeIgnoringCase(messages.content, pattern);

/** Conversations whose title or any message contains `query`, in any case. */
export function matchesQuery(db: Db, query: string): SQL | undefined {
  const pattern = likePattern(query);
  return or(
    likeIgnoringCase(conversations.title, pattern),
    exists(
      db
        .select({ one: sql`1` })
        .from(messages)
        .where(and(eq(messages.conversationId, conversations.id), contentMatches(pattern))),
    ),
  );
}

/** Where `query` matched in each found conversation: one small query per conversation of the page. */
export async function describeMatch(db: Db, conversation: Conversation, query: string): Promise<SearchMatch> {
  const [first] = await db
    .select({ id: messages.id, content: messages.content })
    .from(messages)
    .where(and(eq(messages.conversationId, conversation.id), contentMatches(likePattern(query))))
    .orderBy(asc(messages.createdAt), asc(insertionOrder(messages)))
    .limit(1);
  const snippet = first ? snippetAround(first.content, query) : null;
  return {
    title: findMatch(conversation.title, query),
    message: first && snippet ? { ...snippet, messageId: first.id } : null,
  };
}
