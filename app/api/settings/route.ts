import { getSettings, syncSettings, updateSettings } from "@/lib/admin-settings";
import { isAdmin } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { checkOllama } from "@/lib/llm/ollama-status";
import { getOllamaPool, installedModelNames, isServerModel } from "@/lib/llm/registry";
import { settingsBody } from "./schema";

export const dynamic = "force-dynamic";

/**
 * The settings page: effective values with where each comes from, and an Ollama check. Where Ollama
 * runs and why it cannot be reached are for admins (the local user counts as one).
 */
export const GET = apiRoute(async (_request: Request, _context: unknown, viewer) => {
  const admin = isAdmin(viewer);
  const db = await getDb();
  // The page shows what another instance saved too.
  await syncSettings(db);
  const { ollamaUrl, ollamaUrlEnv, ...settings } = await getSettings(db);
  const ollama = await checkOllama({ detailed: admin });
  return Response.json({ ...settings, ...(admin ? { ollamaUrl, ollamaUrlEnv } : {}), ollama, editable: admin });
});

/** Admins change roles, their keep-alive and the search backend; values set in the environment are refused. */
export const PATCH = apiRoute(async (request: Request, _context: unknown, viewer) => {
  if (!isAdmin(viewer)) throw new AppError("forbidden:admin", "Only an admin can change settings.");
  const body = await parseJsonBody(request, settingsBody);
  const db = await getDb();
  if (body.roles) {
    const named = Object.values(body.roles).filter((name): name is string => Boolean(name));
    const ollama = named.some((name) => !isServerModel(name)) ? await getOllamaPool().listModels() : [];
    const installed = new Set(ollama.map((m) => m.name));
    for (const name of named.filter(isServerModel))
      for (const served of await installedModelNames(name)) installed.add(served);
    for (const [role, name] of Object.entries(body.roles)) {
      if (name && !installed.has(name) && !installed.has(`${name}:latest`)) {
        throw new AppError(
          "bad_request:unknown_model",
          `Model '${name}' for the ${role} role is not installed in Ollama.`,
          { details: { model: name, role } },
        );
      }
    }
  }
  return Response.json(await updateSettings(db, body));
});
