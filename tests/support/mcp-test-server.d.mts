/** Types of `mcp-test-server.mjs` for the tests that start it in-process. */
export declare function startHttpTestServer(options?: {
  port?: number;
  /** The older SSE transport only: a Streamable HTTP POST gets a 405. */
  sse?: boolean;
  /** Twenty numbered tools instead of the test tools. */
  many?: boolean;
  /** A hostile server: a tool whose schema fans out, a 512 KB tool list, or list_changed on demand. */
  hostile?: "schema-bomb" | "huge-list" | "list-spam";
}): Promise<{
  url: string;
  /** Streamable HTTP sessions a client ended with DELETE, in order. */
  endedSessions(): string[];
  close(): Promise<void>;
}>;
