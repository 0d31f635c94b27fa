import type { ConversationSummary } from "@/lib/client/types";

/** A conversation as the API returns it, for the browser's tests: a stored row with the defaults of a new chat. */
export const conversationSummary = (
  fields: Pick<ConversationSummary, "id"> & Partial<ConversationSummary>,
): ConversationSummary => ({
  userId: null,
  title: "Chat",
  model: null,
  summary: null,
  summaryThrough: null,
  planFirst: false,
  disabledToolGroups: [],
  activeLeafId: null,
  settings: {},
  pinned: false,
  archived: false,
  projectId: null,
  private: false,
  createdAt: 0,
  updatedAt: 0,
  ...fields,
});
