/** Throwaway HTTP and raw TCP servers on 127.0.0.1 for the fetcher's tests; they record what they saw. */
import http from "node:http";
import net from "node:net";

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface LocalServer {
  port: number;
  /** "127.0.0.1:<port>", the FETCH_ALLOW_PRIVATE entry for this server. */
  allow: string;
  url(path?: string): string;
  requests: SeenRequest[];
  connections: number;
  /** Resolves when a connection to this server has closed (e.g. the client gave up reading). */
  closedConnection: Promise<void>;
  close(): Promise<void>;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, seen: SeenRequest) => void;

export async function startHttpServer(handler: Handler): Promise<LocalServer> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const seen = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(seen);
      handler(request, response, seen);
    });
  });
  return listen(server, requests, () => server.closeAllConnections());
}

/** A raw TCP server for responses no well-behaved HTTP server would send (or none at all). */
export async function startRawServer(onConnection: (socket: net.Socket) => void): Promise<LocalServer> {
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    socket.resume(); // read (and drop) the request, so the server notices when the client hangs up
    onConnection(socket);
  });
  return listen(server, [], () => {});
}

async function listen(server: net.Server, requests: SeenRequest[], closeAll: () => void): Promise<LocalServer> {
  const sockets = new Set<net.Socket>();
  let markClosed: () => void = () => {};
  const closedConnection = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const result = { connections: 0 } as LocalServer;
  server.on("connection", (socket: net.Socket) => {
    result.connections++;
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      markClosed();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return Object.assign(result, {
    port,
    allow: `127.0.0.1:${port}`,
    url: (path = "/") => `http://127.0.0.1:${port}${path}`,
    requests,
    closedConnection,
    close: () =>
      new Promise<void>((resolve) => {
        closeAll();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}

/** Writes `chunk` until the connection closes, respecting backpressure: an endless body. */
export function writeForever(stream: NodeJS.WritableStream & { destroyed?: boolean }, chunk: Buffer): void {
  const pump = () => {
    while (!stream.destroyed) {
      if (!stream.write(chunk)) {
        stream.once("drain", pump);
        return;
      }
    }
  };
  stream.on("error", () => {});
  pump();
}
