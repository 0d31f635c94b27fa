import net from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as health } from "@/app/api/health/route";
import { GET as models } from "@/app/api/models/route";
import { GET as readSettings } from "@/app/api/settings/route";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { client, setupAccounts, type TestClient } from "@/tests/support/accounts";
import { setupAppEnv } from "@/tests/support/app-env";

// Where Ollama runs, and why it cannot be reached, is infrastructure: admins see it, other users
// and anonymous visitors do not (docs/security.md).
const fake = setupFakeOllama();
setupAppEnv(fake);

const { admin, user } = setupAccounts();
const anonymous = client();
let downUrl = "";

/** A loopback port nobody listens on: connecting there is refused at once. */
async function closedLoopbackUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  downUrl = await closedLoopbackUrl();
});

function ollamaDown(): void {
  process.env.OLLAMA_BASE_URL = downUrl;
  resetConfigForTests();
}
function ollamaUp(): void {
  process.env.OLLAMA_BASE_URL = fake().url;
  resetConfigForTests();
}

type Health = { ollama: { reachable: boolean; version: string | null; error?: string } };
type Settings = Health & { ollamaUrl?: string; editable: boolean };

const readHealth = async (who: TestClient) =>
  (await (await health(who.request("/api/health", "GET"))).json()) as Health;
const settingsOf = async (who: TestClient) =>
  (await (await readSettings(who.request("/api/settings", "GET"))).json()) as Settings;

describe("infrastructure details are for admins", () => {
  it("/api/settings shows the Ollama address to an admin only", async () => {
    ollamaUp();
    expect((await settingsOf(admin)).ollamaUrl).toBe(fake().url);
    const asUser = await settingsOf(user);
    expect(asUser.ollamaUrl).toBeUndefined();
    expect(asUser.editable).toBe(false);
    expect(JSON.stringify(asUser)).not.toContain(fake().url.replace("http://", ""));
    expect(asUser.ollama).toEqual({ reachable: true, version: "0.12.10" });
  });

  it("/api/settings says why Ollama is unreachable, and where it was looked for, to an admin only", async () => {
    ollamaDown();
    const asAdmin = await settingsOf(admin);
    expect(asAdmin.ollama.reachable).toBe(false);
    expect(asAdmin.ollama.error).toContain(downUrl);
    const asUser = await settingsOf(user);
    expect(asUser.ollama).toEqual({ reachable: false, version: null });
    expect(JSON.stringify(asUser)).not.toContain(downUrl.replace("http://", ""));
    ollamaUp();
  });

  it("the public /api/health says Ollama is down without the address or the error; an admin gets both", async () => {
    ollamaDown();
    for (const who of [anonymous, user]) {
      const body = await readHealth(who);
      expect(body.ollama).toEqual({ reachable: false, version: null });
      expect(JSON.stringify(body)).not.toContain(downUrl.replace("http://", ""));
    }
    const asAdmin = await readHealth(admin);
    expect(asAdmin.ollama.reachable).toBe(false);
    expect(asAdmin.ollama.error).toMatch(/ECONNREFUSED/);
    expect(asAdmin.ollama.error).toContain(downUrl);
    ollamaUp();
  });

  it("the unreachable-Ollama error every user may see (model list, chat) names no address", async () => {
    ollamaDown();
    const response = await models(user.request("/api/models", "GET"));
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(text).toContain("Cannot reach Ollama");
    expect(text).not.toContain(downUrl.replace("http://", ""));
    ollamaUp();
  });
});

describe("health is polled", () => {
  it("is never cached nor gzipped per poll (no-store, no-transform)", async () => {
    const response = await health(anonymous.request("/api/health", "GET"));
    expect(response.headers.get("cache-control")).toBe("no-store, no-transform");
  });

  it("twenty polls at once ask Ollama's version at most once", async () => {
    const before = fake().requests.filter((r) => r.path === "/api/version").length;
    const bodies = await Promise.all(Array.from({ length: 20 }, () => readHealth(anonymous)));
    expect(bodies.every((body) => body.ollama.reachable)).toBe(true);
    expect(fake().requests.filter((r) => r.path === "/api/version").length - before).toBeLessThanOrEqual(1);
  });
});
