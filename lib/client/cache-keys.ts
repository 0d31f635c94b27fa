/**
 * The SWR cache key of each API resource the browser reads. One resource, one key: every hook that
 * reads a resource or updates it after a change names it from here, so they share one cache entry.
 */
export const cacheKeys = {
  me: "/api/auth/me",
  health: "/api/health",
  models: "/api/models",
  loadedModels: "/api/admin/models/loaded",
  ollamaServers: "/api/admin/models/servers",
  settings: "/api/settings",
  signup: "/api/admin/settings",
  users: "/api/admin/users",
  presets: "/api/presets",
  projects: "/api/projects",
  /** The sidebar's search inside the user's files. */
  fileSearch: (q: string) => `/api/files/search?q=${encodeURIComponent(q)}`,
  projectFiles: (id: string) => `/api/projects/${encodeURIComponent(id)}/files`,
  mcpServers: "/api/admin/mcp/servers",
  toolGroups: "/api/tool-groups",
  conversation: (id: string) => `/api/conversations/${encodeURIComponent(id)}`,
  /** The user's file storage, and the conversation's file count when there is one. */
  fileUsage: (conversationId: string | null) =>
    conversationId ? `/api/files/usage?conversation=${encodeURIComponent(conversationId)}` : "/api/files/usage",
} as const;

/**
 * One page of the conversation list: the search it answers (`q`, "" for none), whether it lists the
 * archived conversations or the others, and where the next page starts.
 */
export type ConversationPageKey = readonly ["/api/conversations", q: string, archived: boolean, cursor: string | null];

/**
 * The keys of the sidebar's pages for one search: the first page, then one page per `nextCursor`
 * until a page has none (`null` tells SWR there is no further page).
 */
export function conversationPageKey(q: string, archived: boolean) {
  return (index: number, previous: { nextCursor: string | null } | null): ConversationPageKey | null => {
    if (index === 0) return ["/api/conversations", q, archived, null];
    return previous?.nextCursor ? ["/api/conversations", q, archived, previous.nextCursor] : null;
  };
}

/** One page of a project's own list of chats (the sidebar's project group), and where it starts. */
export type ProjectChatsPageKey = readonly ["/api/conversations", "project", projectId: string, cursor: string | null];

/** The keys of a project group's pages: its first page, then one per `nextCursor` until a page has none. */
export function projectChatsPageKey(projectId: string) {
  return (index: number, previous: { nextCursor: string | null } | null): ProjectChatsPageKey | null => {
    if (index === 0) return ["/api/conversations", "project", projectId, null];
    return previous?.nextCursor ? ["/api/conversations", "project", projectId, previous.nextCursor] : null;
  };
}
