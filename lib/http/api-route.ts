import "server-only";
import { guardRequest, requireViewer, type Viewer } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { route } from "./responses";

/**
 * Every API route goes through this: the request guards (origin, host), then the viewer — the
 * signed-in account, or the local user without accounts — whose data the handler may touch.
 */
export function apiRoute<Context>(
  handler: (request: Request, context: Context, viewer: Viewer) => Promise<Response>,
  { admin = false }: { admin?: boolean } = {},
): (request: Request, context?: Context) => Promise<Response> {
  return route(async (request: Request, context?: Context) => {
    guardRequest(request);
    const viewer = await requireViewer(await getDb(), request, { admin });
    return handler(request, context as Context, viewer);
  });
}

/** Routes anyone may call (health, sign-in): the request guards only. */
export function publicRoute<Context>(
  handler: (request: Request, context: Context) => Promise<Response>,
): (request: Request, context?: Context) => Promise<Response> {
  return route(async (request: Request, context?: Context) => {
    guardRequest(request);
    return handler(request, context as Context);
  });
}
