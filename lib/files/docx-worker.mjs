// A worker thread that turns one DOCX into HTML with mammoth (started by docx-html.ts). Plain
// JavaScript, loaded by absolute path, so it runs the same under vitest and `next start` and no
// bundler touches it. The caller has already measured what the ZIP inflates to (zip-entries.ts);
// the thread's heap cap and the caller's time budget bound the rest.
import os from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import mammoth from "mammoth";

// Converting yields to the server: on Linux the nice value is per thread, so this lowers only this one.
if (process.platform === "linux") {
  try {
    os.setPriority(19);
  } catch {
    // not allowed here: run at normal priority
  }
}

try {
  const result = await mammoth.convertToHtml(
    { buffer: Buffer.from(workerData.bytes) },
    {
      // Images are named by their description, never read; files outside the DOCX are never opened.
      convertImage: mammoth.images.imgElement(async (image) => ({ src: "", alt: image.altText ?? "" })),
      externalFileAccess: false,
    },
  );
  parentPort.postMessage({ ok: true, html: result.value });
} catch (error) {
  parentPort.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
