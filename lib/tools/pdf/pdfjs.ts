import path from "node:path";

/**
 * The options every PDF is opened with. pdf.js itself runs only in the PDF workers
 * (`pdf-worker.mjs`), never on the server's main thread: the main thread computes these options
 * (asset directories resolved here) and hands them to each worker.
 */

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
