import { ToolRegistry } from "../registry";
import type { ToolServices } from "../services";
import { createPdfToText } from "./pdf-to-text";
import { createScrapeUrl } from "./scrape-url";
import { createSearchAndFetch } from "./search-and-fetch";
import { createWebSearch } from "./web-search";

/** The four built-in tools in one registry. */
export function createBuiltinRegistry(services: ToolServices): ToolRegistry {
  return new ToolRegistry()
    .register(createWebSearch(services))
    .register(createScrapeUrl(services))
    .register(createPdfToText(services))
    .register(createSearchAndFetch(services));
}
