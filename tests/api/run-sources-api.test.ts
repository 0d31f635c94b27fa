import { describe, expect, it } from "vitest";
import { GET as getSource } from "@/app/api/runs/[runId]/sources/[n]/route";
import { GET as listSources } from "@/app/api/runs/[runId]/sources/route";
import { sha256 } from "@/lib/db/run-sources";
import type { SourceSummary, StoredSource } from "@/lib/protocol/sources";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { setupAccounts, type TestClient } from "@/tests/support/accounts";
import { expectApiError, params, setupAppEnv } from "@/tests/support/app-env";
import { conversationOf, runChatAs } from "@/tests/support/page-run";

/** A run's sources over HTTP (docs/research.md, "The source store"; docs/api.md, the sources routes). */

const fake = setupFakeOllama();
const app = setupAppEnv(fake);
const { admin: alice, user: bob } = setupAccounts({ admin: "alice-sources", user: "bob-sources" });

const FIRST = "Ollama runs large language models locally.";
const SECOND = "The bridge opened in 1932.";

/** Alice's run that reads two pages of the fake web, one after the other; its id. */
async function twoPageRun(): Promise<string> {
  app.web().routes.set("/first", { body: `<article><p>${FIRST}</p></article>` });
  app
    .web()
    .routes.set("/second", { body: `<html><head><title>Bridge</title></head><body><p>${SECOND}</p></body></html>` });
  const id = await conversationOf(alice);
  fake().script(
    { when: { hasTools: true }, toolCalls: [{ name: "scrape_url", arguments: { url: `${app.web().url}/first` } }] },
    { when: { hasTools: true }, toolCalls: [{ name: "scrape_url", arguments: { url: `${app.web().url}/second` } }] },
    { when: { hasTools: true }, content: "Both read." },
  );
  const events = await runChatAs(alice, fake(), id, "Read both pages");
  const runId = events.find((event) => event.event === "run")?.data.runId;
  if (typeof runId !== "string") throw new Error("no run event");
  return runId;
}

function list(user: TestClient, runId: string) {
  return listSources(user.request(`/api/runs/${runId}/sources`, "GET"), params({ runId }));
}

function one(user: TestClient, runId: string, n: string) {
  return getSource(user.request(`/api/runs/${runId}/sources/${n}`, "GET"), params({ runId, n }));
}

describe("GET /api/runs/:runId/sources", () => {
  it("lists the pages the run read under the numbers its answer cites, in the order first read, without their text", async () => {
    const runId = await twoPageRun();
    const response = await list(alice, runId);
    expect(response.status).toBe(200);
    const { sources } = (await response.json()) as { sources: SourceSummary[] };
    expect(sources.map((source) => [source.n, source.url])).toEqual([
      [1, `${app.web().url}/first`],
      [2, `${app.web().url}/second`],
    ]);
    expect(sources[1]).toMatchObject({ title: "Bridge", chars: SECOND.length, contentHash: sha256(SECOND) });
    expect(sources[0]).not.toHaveProperty("text");
  });

  it("another user's run and an unknown run are not found", async () => {
    const runId = await twoPageRun();
    await expectApiError(await list(bob, runId), 404, "not_found:conversation");
    await expectApiError(await list(alice, "no-such-run"), 404, "not_found:run");
  });
});

describe("GET /api/runs/:runId/sources/:n", () => {
  it("gives source n whole: its text as read and the part it was read in", async () => {
    const runId = await twoPageRun();
    const response = await one(alice, runId, "2");
    expect(response.status).toBe(200);
    const source = (await response.json()) as StoredSource;
    expect(source).toMatchObject({ n: 2, url: `${app.web().url}/second`, title: "Bridge", text: SECOND });
    expect(source.parts).toEqual([{ start: 0, end: SECOND.length }]);
  });

  it("a number that is not a positive integer is a 400; one the run has no source under is a 404", async () => {
    const runId = await twoPageRun();
    for (const bad of ["0", "-1", "1.5", "x", "01"]) {
      await expectApiError(await one(alice, runId, bad), 400, "bad_request:validation");
    }
    await expectApiError(await one(alice, runId, "3"), 404, "not_found:source");
  });

  it("another user's run is not found, whatever the number", async () => {
    const runId = await twoPageRun();
    await expectApiError(await one(bob, runId, "1"), 404, "not_found:conversation");
  });
});
