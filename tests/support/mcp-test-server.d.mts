/** Types of `mcp-test-server.mjs` for the tests that start it in-process. */
export declare function startHttpTestServer(options?: {
  port?: number;
  /** The older SSE transport only: a Streamable HTTP POST gets a 405. */
  sse?: boolean;
  /** Twenty numbered tools instead of the test tools. */
  many?: boolean;
}): Promise<{
  url: string;
  /** Streamable HTTP sessions a client ended with DELETE, in order. */
  endedSessions(): string[];
  close(): Promise<void>;
}>;
