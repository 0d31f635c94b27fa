/**
 * Every error code has a message in both languages, checked by the compiler: the `errors` section
 * of messages/en.json and messages/ja.json must have `errors.<kind>.<name>` for every code of the
 * catalogue (`lib/protocol/error-codes.ts`), so a code added without its messages does not compile
 * (`tsc --noEmit`, part of `npm run lint`). The same for the tool card's `tools.failure.<kind>`, one
 * for each kind of tool failure (`lib/protocol/tool-failures.ts`). Types only: nothing here runs.
 */
import type { errorCatalogue } from "@/lib/protocol/error-codes";
import type { ToolErrorKind } from "@/lib/protocol/tool-failures";
import type en from "@/messages/en.json";
import type ja from "@/messages/ja.json";

/** What a bundle's `errors` must hold: a message under every kind for each of its names. */
export type ErrorMessages = {
  [K in keyof typeof errorCatalogue]: { [N in (typeof errorCatalogue)[K][number]]: string };
};

/** What a bundle's `tools.failure` must hold: a short label for every kind of tool failure. */
export type ToolFailureLabels = { [K in ToolErrorKind]: string };

type Covers<Bundle extends { errors: ErrorMessages; tools: { failure: ToolFailureLabels } }> = Bundle;

/** Compiles only while both bundles cover the catalogue and the tool failures. */
export type BundlesCoverCatalogue = [Covers<typeof en>, Covers<typeof ja>];
