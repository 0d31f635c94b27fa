import path from "node:path";

/**
 * Loads pdf.js (legacy build, server side) and the options every document is opened with (SPEC §2).
 * pdf.js is imported lazily, so importing a tool never loads it (nor `@napi-rs/canvas`, which its
 * legacy build requires at load time), e.g. while `next build` evaluates route modules.
 */

type Pdfjs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");

let loaded: Promise<Pdfjs> | undefined;

export function loadPdfjs(): Promise<Pdfjs> {
  loaded ??= (async () => {
    // In Node pdf.js runs its "worker" on the main thread, importing `./pdf.worker.mjs` relative to
    // itself on first use. Loading the worker module up front (it registers `globalThis.pdfjsWorker`)
    // removes that path lookup, so it works however the server bundles or externalises this module.
    await import("pdfjs-dist/legacy/build/pdf.worker.mjs");
    return import("pdfjs-dist/legacy/build/pdf.mjs");
  })();
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}

let assetRoot: string | undefined;

/**
 * The installed pdfjs-dist directory, resolved from this module's location (vitest, plain Node, and
 * Turbopack, which maps `import.meta.url` to the source file inside the running project), else from
 * the working directory (`next start` runs in the project root, whose node_modules hold the external
 * package). `createRequire` comes from `process.getBuiltinModule` so no bundler rewrites the resolve.
 */
function pdfjsRoot(): string {
  if (assetRoot) return assetRoot;
  const { createRequire } = process.getBuiltinModule("node:module");
  const bases = [import.meta.url, path.join(/*turbopackIgnore: true*/ process.cwd(), "package.json")];
  for (const base of bases) {
    try {
      assetRoot = path.dirname(createRequire(base).resolve("pdfjs-dist/package.json"));
      return assetRoot;
    } catch {
      // try the next base
    }
  }
  throw new Error("pdfjs-dist is not installed (cannot resolve pdfjs-dist/package.json).");
}

/**
 * pdf.js wants directory "URLs" with a trailing slash; in Node it reads them with `fs`. The
 * `turbopackIgnore` comments stop Next's output tracing from taking these runtime paths for the
 * whole project.
 */
const assetDir = (name: string): string => path.join(/*turbopackIgnore: true*/ pdfjsRoot(), name) + path.sep;

/** Options for `getDocument`, minus the data. */
export function documentOptions() {
  return {
    standardFontDataUrl: assetDir("standard_fonts"),
    // Predefined CMaps (e.g. UniJIS-UCS2-H in Japanese PDFs): without them such text is not extracted.
    cMapUrl: assetDir("cmaps"),
    cMapPacked: true,
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    useWorkerFetch: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    enableXfa: false,
    // Errors only: pdf.js otherwise logs a warning line for every recoverable oddity in a file.
    verbosity: 0,
  };
}
