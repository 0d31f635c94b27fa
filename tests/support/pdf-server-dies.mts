// A stand-in for the server in pdf-process.test.ts: starts reading an endless PDF in a worker process,
// prints that process's id, then ends as argv[2] says: "exit" (process.exit, with no `setpriv` on
// PATH) or a signal name (sent to itself, e.g. SIGKILL, which runs no handler at all).

import { openPdf } from "@/lib/tools/pdf/pdf-text";
import { pdfWorkerPids } from "@/lib/tools/pdf/pdf-worker-host";
import { makeEndlessPdf } from "@/tests/support/pdf-bombs";
import { testPdfLimits } from "@/tests/support/pdf-work";

const how = process.argv[2] ?? "SIGKILL";
if (how === "exit") process.env.PATH = "/nonexistent";
const pdf = await openPdf(makeEndlessPdf(), testPdfLimits({ PDF_TIME_BUDGET_S: "120" }));
void pdf.pageText(0).catch(() => undefined);
await new Promise((resolve) => setTimeout(resolve, 200)); // the page request is in the worker now
process.stdout.write(`${JSON.stringify(pdfWorkerPids())}\n`);
if (how === "exit") process.exit(0);
process.kill(process.pid, how);
