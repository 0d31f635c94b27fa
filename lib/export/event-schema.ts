import type { z } from "zod";
import { type RunEventName, runEventSchemas } from "@/lib/protocol/run-events";

/**
 * The shape of every stored run event's data, for imported conversations: the run protocol's own
 * schemas (`lib/protocol/run-events.ts`), the ones the browser's decoder checks the live stream
 * with, so an event read from a file is held to exactly what a run sends. The importer only checks
 * the data against them and stores it as it was read (`lib/export/format.ts`), so fields this
 * server does not know are kept, not stripped.
 */
export const runEventDataSchemas: { readonly [K in RunEventName]: z.ZodType } = runEventSchemas;
