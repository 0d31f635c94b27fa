import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AppError } from "@/lib/errors";
import { freshPostgresDatabase } from "@/tests/support/postgres-database";
import type { ThrowawayDatabase } from "@/tests/support/throwaway-postgres";
import { clusterKey, encodeMessage, sign } from "./envelope";
import { InstanceLink, type InstanceLinkOptions } from "./instance-link";
import { instanceChannel } from "./instance-registry";

let database: ThrowawayDatabase;
const opened: InstanceLink[] = [];

beforeAll(async () => {
  database = await freshPostgresDatabase("instance_link");
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((link) => link.close()));
});

afterAll(async () => {
  await database?.drop();
});

async function instance(id: string, handle: InstanceLinkOptions["handle"], timeoutMs = 5_000) {
  const link = await InstanceLink.open({ url: database.url, instanceId: id, handle, timeoutMs });
  opened.push(link);
  return link;
}

const nothing = async () => null;

describe("requests between app instances", () => {
  it("the owner's answer is the sender's result", async () => {
    const seen: unknown[] = [];
    const sender = await instance("sender", nothing);
    await instance("owner", async (body) => {
      seen.push(body);
      return { stopping: true, runId: "r1" };
    });
    expect(await sender.request("owner", { kind: "stop", conversationId: "c1" })).toEqual({
      stopping: true,
      runId: "r1",
    });
    expect(seen).toEqual([{ kind: "stop", conversationId: "c1" }]);
  });

  it("the owner's refusal is the sender's: the same code, message, retryability and details", async () => {
    const sender = await instance("sender", nothing);
    await instance("owner", async () => {
      throw new AppError("rate_limited:interrupts", "Too many follow-ups.", { retryable: true, details: { max: 20 } });
    });
    const refusal = await sender.request("owner", { kind: "interrupt" }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({
      code: "rate_limited:interrupts",
      status: 429,
      message: "Too many follow-ups.",
      retryable: true,
      details: { max: 20 },
    });
  });

  it("an owner's failure that is not a user's error comes back as an internal error without its details", async () => {
    const sender = await instance("sender", nothing);
    await instance("owner", async () => {
      throw new Error("secret stack detail");
    });
    const refusal = await sender.request("owner", {}).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: "internal", status: 500 });
    expect(String((refusal as Error).message)).not.toContain("secret");
  });

  it("no answer within the timeout is a retryable 503, and a late answer changes nothing", async () => {
    const sender = await instance("sender", nothing, 200);
    let answerLate: () => void = () => {};
    await instance("slow_owner", () => new Promise((resolve) => (answerLate = () => resolve("too late"))));
    const refusal = await sender.request("slow_owner", {}).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: "unavailable:instance_unreachable", status: 503, retryable: true });
    answerLate();
    // A request to an instance nobody runs gets the same verdict.
    await expect(sender.request("gone", {})).rejects.toMatchObject({ code: "unavailable:instance_unreachable" });
  });

  it("answers go to the instance that asked: parallel requests from two senders each get their own", async () => {
    const [a, b] = [await instance("a", nothing), await instance("b", nothing)];
    await instance("owner", async (body) => ({ echo: body }));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => (index % 2 ? a : b).request("owner", { index })),
    );
    expect(results).toEqual(Array.from({ length: 10 }, (_, index) => ({ echo: { index } })));
  });

  it("a follow-up longer than one notification reaches the owner whole", async () => {
    const sender = await instance("sender", nothing);
    await instance("owner", async (body) => (body as { message: string }).message.length);
    const message = "追伸 ".repeat(10_000);
    expect(await sender.request("owner", { kind: "interrupt", message })).toBe(message.length);
  });

  it("closing the link gives the requests still waiting for their reply the unreachable verdict", async () => {
    const sender = await InstanceLink.open({
      url: database.url,
      instanceId: "closing",
      handle: nothing,
      timeoutMs: 60_000,
    });
    let received = false;
    await instance("silent", () => {
      received = true;
      return new Promise(() => {});
    });
    let verdict: unknown;
    sender.request("silent", {}).catch((error: unknown) => {
      verdict = error;
    });
    await expect.poll(() => received).toBe(true);
    await sender.close();
    await expect.poll(() => verdict).toMatchObject({ code: "unavailable:instance_unreachable", status: 503 });
  });

  it("one-way messages reach the attached services with their sender; a service answers only the requests it claims", async () => {
    const sender = await instance("sender", nothing);
    const owner = await instance("owner", async () => "handled");
    const received: unknown[] = [];
    owner.attach({
      answer: (body) =>
        (body as { kind?: string }).kind === "follow" ? Promise.resolve({ value: "followed" }) : undefined,
      receive: (body, from) => received.push({ body, from }),
    });
    // Their order is the channel's (notify-channel.test.ts).
    await sender.send("owner", { note: "one-way" });
    await expect.poll(() => received).toEqual([{ body: { note: "one-way" }, from: "sender" }]);
    expect([
      await sender.request("owner", { kind: "follow" }),
      await sender.request("owner", { kind: "stop" }),
    ]).toEqual(["followed", "handled"]);
  });
});

describe("requests the link does not trust", () => {
  /** A payload sent as is, as any role that may connect to the database can. */
  async function rawNotify(instanceId: string, payloads: string[]) {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      for (const payload of payloads)
        await client.query("SELECT pg_notify($1, $2)", [instanceChannel(instanceId), payload]);
    } finally {
      await client.end();
    }
  }
  const stop = { t: "request", id: "forged-1", from: "attacker", body: { kind: "stop", conversationId: "c1" } };

  it("a stop request that is unsigned or signed with another key never reaches the owner's handler", async () => {
    const seen: unknown[] = [];
    await instance("guarded", async (body) => {
      seen.push(body);
      return null;
    });
    const sender = await instance("honest", nothing);
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const channel = instanceChannel("guarded");
    await rawNotify("guarded", [
      JSON.stringify({ m: "x", t: Date.now(), d: stop }),
      ...encodeMessage(randomBytes(32), channel, stop),
    ]);
    await sender.request("guarded", { kind: "stop", conversationId: "mine" });
    expect(seen).toEqual([{ kind: "stop", conversationId: "mine" }]);
    vi.restoreAllMocks();
  });

  it("a replayed request is answered once", async () => {
    const seen: unknown[] = [];
    await instance("replay_owner", async (body) => {
      seen.push(body);
      return null;
    });
    const sender = await instance("replay_sender", nothing);
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const request = { ...stop, from: "replay_sender" };
    const payloads = encodeMessage(clusterKey(), instanceChannel("replay_owner"), request);
    await rawNotify("replay_owner", [...payloads, ...payloads]);
    await sender.request("replay_owner", { kind: "stop", conversationId: "after" });
    expect(seen).toEqual([request.body, { kind: "stop", conversationId: "after" }]);
    vi.restoreAllMocks();
  });

  it("a signed message that is not a request, reply or message is dropped and the link goes on answering", async () => {
    const seen: unknown[] = [];
    await instance("shapes_owner", async (body) => {
      seen.push(body);
      return "ok";
    });
    const sender = await instance("shapes_sender", nothing);
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    const channel = instanceChannel("shapes_owner");
    await rawNotify("shapes_owner", [
      sign(clusterKey(), channel, JSON.stringify({ m: "x", t: Date.now(), d: null })),
      ...encodeMessage(clusterKey(), channel, { t: "request", id: "no-sender", body: {} }),
      ...encodeMessage(clusterKey(), channel, { t: "reply", id: "nobody-asked", ok: true, value: 1 }),
    ]);
    expect(await sender.request("shapes_owner", { kind: "ping" })).toBe("ok");
    expect(seen).toEqual([{ kind: "ping" }]);
    expect(warned).toHaveBeenCalledWith(expect.stringContaining("not a request, reply or message"));
    vi.restoreAllMocks();
  });
});
