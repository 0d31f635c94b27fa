// npm run bench:images — what decoding images in a child process costs: the structure check alone,
// then preparing a vision image (resize to 1024, JPEG) in the server process as before, against one
// child process per image as now, sequentially and as a burst of 8 (IMAGE_DECODE_CONCURRENCY bounds it).
import { createCanvas, loadImage } from "@napi-rs/canvas";
import { getConfig } from "@/lib/env-config";
import { decodeInChild } from "@/lib/files/image-decode";
import { checkImage } from "@/lib/files/image-inspect";
import { sized } from "./smoke-mode.mts";
import { fmt, percentile } from "./support.mts";

const now = () => performance.now();
const config = getConfig();

function photo(width: number, height: number): Buffer {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  for (let i = 0; i < 400; i++) {
    context.fillStyle = `hsl(${(i * 37) % 360} 70% 50%)`;
    context.fillRect((i * 97) % width, (i * 53) % height, 40 + (i % 200), 30 + (i % 150));
  }
  return Buffer.from(canvas.encodeSync("png"));
}

/** The old way: decode and re-encode on the server's own thread. */
async function inProcess(bytes: Buffer): Promise<void> {
  const image = await loadImage(bytes);
  const scale = Math.min(1, 1024 / Math.max(image.width, image.height));
  const canvas = createCanvas(Math.round(image.width * scale), Math.round(image.height * scale));
  canvas.getContext("2d").drawImage(image, 0, 0, canvas.width, canvas.height);
  await canvas.encode("jpeg", 85);
}

const limits = {
  timeoutMs: config.IMAGE_DECODE_TIMEOUT_S * 1000,
  memoryMb: config.IMAGE_DECODE_MEMORY_MB,
  concurrency: config.IMAGE_DECODE_CONCURRENCY,
};
const inChild = async (bytes: Buffer) => {
  const outcome = await decodeInChild({ bytes, maxSide: 1024, quality: 85, format: "image/jpeg" }, limits);
  if (!outcome.ok) throw new Error(outcome.message);
};

async function timed(runs: number, task: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = now();
    await task();
    times.push(now() - start);
  }
  return times;
}

console.log(`IMAGE_DECODE_CONCURRENCY=${limits.concurrency}, IMAGE_DECODE_MEMORY_MB=${limits.memoryMb}`);
const sizes: [number, number][] = sized(
  [
    [1600, 1200],
    [4000, 3000],
  ],
  [[160, 120]],
);
const runs = sized(10, 1);
const burstSize = sized(8, 2);
for (const [width, height] of sizes) {
  const bytes = photo(width, height);
  const label = `${width}×${height} PNG (${fmt(bytes.length / 1024, 0)} KB)`;
  const check = await timed(sized(50, 1), async () => {
    checkImage(bytes, { maxPixels: config.MAX_IMAGE_PIXELS, maxFrames: config.MAX_IMAGE_FRAMES });
  });
  await inProcess(bytes); // warm-up
  const old = await timed(runs, () => inProcess(bytes));
  const child = await timed(runs, () => inChild(bytes));
  const burstStart = now();
  await Promise.all(Array.from({ length: burstSize }, () => inChild(bytes)));
  const burst = now() - burstStart;
  const median = (values: number[]) => fmt(percentile(values, 50));
  console.log(
    `${label}: check ${fmt(percentile(check, 50), 2)} ms; in-process ${median(old)} ms; ` +
      `child process ${median(child)} ms (p95 ${fmt(percentile(child, 95))}); ${burstSize} at once ${fmt(burst, 0)} ms`,
  );
}
