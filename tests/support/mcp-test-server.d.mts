/** Types of `mcp-test-server.mjs` for the tests that start it in-process. */
export declare function startHttpTestServer(options?: {
  port?: number;
  /** The older SSE transport only: a Streamable HTTP POST gets a 405. */
  sse?: boolean;
  /** Twenty numbered tools instead of the test tools. */
  many?: boolean;
  /** A hostile server: a tool whose schema fans out, or a 512 KB tool list. */
  hostile?: "schema-bomb" | "huge-list";
}): Promise<{
  url: string;
  /** Streamable HTTP sessions a client ended with DELETE, in order. */
  endedSessions(): string[];
  close(): Promise<void>;
}>;
