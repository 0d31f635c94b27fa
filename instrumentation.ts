/** Next.js calls this once at server start; the work is Node-only (see lib/server-start.ts). */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    // Route handlers learn the client's address from the stamp (`npm start` preloads it already).
    const { installPeerStamp } = await import("@/lib/auth/peer-stamp.mjs");
    installPeerStamp();
    const { startServer } = await import("@/lib/server-start");
    await startServer();
  }
}
