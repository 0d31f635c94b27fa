"use client";

import { createContext, useContext } from "react";

export interface ConversationFiles {
  conversationId: string | null;
  /** File names by id, so `attachment:<id>` can be shown as a name. */
  names: ReadonlyMap<string, string>;
}

/** The open conversation's files, for whatever in its thread mentions them. */
export const ConversationFilesContext = createContext<ConversationFiles>({ conversationId: null, names: new Map() });

export function useConversationFiles(): ConversationFiles {
  return useContext(ConversationFilesContext);
}
