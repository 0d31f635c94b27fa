/** Next.js calls this once at server start; the work is Node-only (see lib/server-start.ts). */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startServer } = await import("@/lib/server-start");
    startServer();
  }
}
