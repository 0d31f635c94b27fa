// A stand-in for lib/files/image-decode-child.mjs that misbehaves on request, for image-decode tests.
// The job's bytes are JSON: { action: "abort" | "exit" | "hang" | "slow" | "spin", file? }.
import fs from "node:fs";

// Like the real child: gone with the test process, even when a test fails before killing it.
process.on("disconnect", () => process.exit(0));

process.once("message", (job) => {
  const { action, file } = JSON.parse(Buffer.from(job.bytes).toString("utf8"));
  if (file) fs.appendFileSync(file, `start ${process.pid}\n`);
  if (action === "abort") process.abort();
  if (action === "exit") process.exit(3);
  if (action === "hang") setInterval(() => {}, 1000);
  if (action === "spin") for (;;);
  if (action === "slow") {
    setTimeout(() => {
      fs.appendFileSync(file, `end ${process.pid}\n`);
      process.send({ ok: true, bytes: new Uint8Array([1]), width: 1, height: 1 }, () => process.exit(0));
    }, 200);
  }
});
