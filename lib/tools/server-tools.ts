import "server-only";
import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createFileStore } from "@/lib/files/file-store";
import { getSettings } from "@/lib/settings";
import { createBuiltinRegistry } from "./builtin";
import type { ToolRegistry } from "./registry";
import { fetchPublic } from "./safe-http";
import { getServerSecret } from "./server-secret";
import type { ToolServices } from "./services";

/** The built-in tools wired to this server's configuration, database and secret. */
export function createServerToolServices(db: Db): ToolServices {
  const config = getConfig();
  const maxBytes = config.MAX_FETCH_MB * 1024 * 1024;
  return {
    // The search backend may be chosen on the settings page.
    limits: { ...config, SEARCH_BACKEND: getSettings(db).searchBackend.value },
    secret: getServerSecret(),
    fetch: (url, options) =>
      fetchPublic(url, {
        ...options,
        maxBytes: options.maxBytes ?? maxBytes,
        allowPrivate: config.FETCH_ALLOW_PRIVATE,
      }),
    files: createFileStore(db),
  };
}

export function createServerToolRegistry(db: Db): ToolRegistry {
  return createBuiltinRegistry(createServerToolServices(db));
}
