import { describe, expect, it } from "vitest";
import { lines, post, readNdjson, setupFakeOllama, type WireChunk } from "./test-helpers";

const fake = setupFakeOllama();

type PullLine = WireChunk & { status?: string; digest?: string; total?: number; completed?: number };

const pull = (body: unknown, init: RequestInit = {}) => post(`${fake().url}/api/pull`, body, init);
const installed = async () =>
  ((await (await fetch(`${fake().url}/api/tags`)).json()) as { models: { name: string }[] }).models.map((m) => m.name);

describe("fake ollama: /api/pull", () => {
  it("streams the manifest, each layer's progress up to its total, verification, the manifest write and success; the model is installed", async () => {
    const res = await pull({ model: "phi3:mini" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    const chunks = (await readNdjson(res)) as PullLine[];
    expect(chunks[0]).toEqual({ status: "pulling manifest" });
    expect(chunks.slice(-3)).toEqual([
      { status: "verifying sha256 digest" },
      { status: "writing manifest" },
      { status: "success" },
    ]);
    const layers = chunks.filter((c) => c.digest);
    const digests = [...new Set(layers.map((c) => c.digest))];
    expect(digests).toHaveLength(5);
    for (const digest of digests) {
      const own = layers.filter((c) => c.digest === digest);
      expect(own.every((c) => c.status === `pulling ${digest?.slice(7, 19)}` && c.total === own[0]?.total)).toBe(true);
      const completed = own.map((c) => c.completed ?? -1);
      expect(completed).toEqual([...completed].sort((a, b) => a - b));
      expect(completed.at(-1)).toBe(own[0]?.total);
    }
    expect(await installed()).toContain("phi3:mini");
  });

  it("fails an unknown name after the manifest line with Ollama's 'pull model manifest: file does not exist'", async () => {
    const res = await pull({ model: "no-such-model:1b" });
    expect(res.status).toBe(200);
    expect(await readNdjson(res)).toEqual([
      { status: "pulling manifest" },
      { error: "pull model manifest: file does not exist" },
    ]);
  });

  it("fails with the dial error when the registry cannot be reached", async () => {
    fake().setRegistry({ unreachable: true });
    const chunks = await readNdjson(await pull({ model: "phi3:mini" }));
    expect(chunks.at(-1)?.error).toMatch(
      /^pull model manifest: Get "https:\/\/registry\.ollama\.ai\/v2\/library\/phi3\/manifests\/mini": dial tcp: .*no such host$/,
    );
    expect(await installed()).not.toContain("phi3:mini");
  });

  it("fails with ENOSPC once the disk is full, after some progress, and installs nothing", async () => {
    fake().setRegistry({ diskFreeBytes: 2_000_000_000 });
    const chunks = (await readNdjson(await pull({ model: "mistral:7b" }))) as PullLine[];
    expect(chunks.some((c) => (c.completed ?? 0) > 0)).toBe(true);
    expect(chunks.at(-1)?.error).toMatch(/^write \/\S+-partial: no space left on device$/);
    expect(await installed()).not.toContain("mistral:7b");
  });

  it("stops downloading when the client closes the request, and a later pull resumes where it stopped", async () => {
    fake().setRegistry({ chunksPerLayer: 10, chunkDelayMs: 20 });
    const aborter = new AbortController();
    const res = await pull({ model: "phi3:mini" }, { signal: aborter.signal });
    let seen = 0;
    await expect(
      (async () => {
        for await (const { chunk } of lines(res)) {
          if ((chunk as PullLine).completed) seen = (chunk as PullLine).completed ?? 0;
          if (seen > 0) aborter.abort();
        }
      })(),
    ).rejects.toThrow();
    await expect.poll(() => fake().requests.at(-1)?.aborted).toBe(true);
    expect(await installed()).not.toContain("phi3:mini");

    fake().setRegistry({ chunkDelayMs: 0 });
    const again = (await readNdjson(await pull({ model: "phi3:mini" }))) as PullLine[];
    const firstLayer = again.find((c) => c.digest);
    expect(firstLayer?.completed).toBeGreaterThan(seen);
    expect(again.at(-1)).toEqual({ status: "success" });
  });

  it("downloads again after the model was deleted (its blobs went with it)", async () => {
    await readNdjson(await pull({ model: "phi3:mini" }));
    const cached = (await readNdjson(await pull({ model: "phi3:mini" }))) as PullLine[];
    expect(cached.filter((c) => c.digest).every((c) => c.completed === c.total)).toBe(true);
    await fetch(`${fake().url}/api/delete`, { method: "DELETE", body: JSON.stringify({ model: "phi3:mini" }) });
    const fresh = (await readNdjson(await pull({ model: "phi3:mini" }))) as PullLine[];
    expect(fresh.find((c) => c.digest)?.completed).toBeLessThan(fresh.find((c) => c.digest)?.total ?? 0);
  });

  it("refuses an empty body and an invalid name with 400, as the handler does before streaming", async () => {
    const empty = await fetch(`${fake().url}/api/pull`, { method: "POST" });
    expect({ status: empty.status, body: await empty.json() }).toEqual({
      status: 400,
      body: { error: "missing request body" },
    });
    const invalid = await pull({ model: "bad name!" });
    expect({ status: invalid.status, body: await invalid.json() }).toEqual({
      status: 400,
      body: { error: "invalid model name" },
    });
  });

  it("is configured over HTTP through POST /__fake/registry", async () => {
    expect((await post(`${fake().url}/__fake/registry`, { unreachable: true })).status).toBe(200);
    expect((await readNdjson(await pull({ model: "phi3:mini" }))).at(-1)?.error).toContain("no such host");
    expect((await post(`${fake().url}/__fake/registry`, { models: [{ name: 1 }] })).status).toBe(400);
  });
});
