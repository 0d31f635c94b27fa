import { randomBytes } from "node:crypto";
import type { Db } from "@/lib/db/client";
import type { Config } from "@/lib/env-config";
import { createFileStore } from "@/lib/files/file-store";
import { fileLimits } from "@/lib/files/quota";
import { createLibrarySearch } from "@/lib/library/library-search";
import { pageTextCacheFor } from "@/lib/tools/page-text-cache";
import { fetchPublic } from "@/lib/tools/safe-http";
import type { ToolServices } from "@/lib/tools/services";

/**
 * The tools' services as the server builds them — fetching through the SSRF guard (what
 * FETCH_ALLOW_PRIVATE allows: the fake web on loopback), files in `db` — for tests and benchmarks.
 */
export function toolServices(config: Config, db: Db): ToolServices {
  return {
    limits: config,
    secret: randomBytes(32),
    fetch: (url, options) =>
      fetchPublic(url, {
        ...options,
        maxBytes: options.maxBytes ?? config.MAX_FETCH_MB * 1024 * 1024,
        allowPrivate: config.FETCH_ALLOW_PRIVATE,
        totalTimeoutMs: 5000,
      }),
    files: createFileStore(db, fileLimits(config)),
    library: createLibrarySearch(db, config),
    pageCache: pageTextCacheFor(config),
  };
}
