import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as adminSettings, PATCH as patchSettings } from "@/app/api/admin/settings/route";
import { PATCH as patchUser, DELETE as removeUser } from "@/app/api/admin/users/[userId]/route";
import { POST as addUser, GET as listUsers } from "@/app/api/admin/users/route";
import { POST as login } from "@/app/api/auth/login/route";
import { POST as logout } from "@/app/api/auth/logout/route";
import { GET as me } from "@/app/api/auth/me/route";
import { POST as signup } from "@/app/api/auth/signup/route";
import { POST as chat } from "@/app/api/chat/route";
import { POST as selectBranch } from "@/app/api/conversations/[id]/branch/route";
import { GET as download } from "@/app/api/conversations/[id]/files/[fileId]/route";
import { POST as upload } from "@/app/api/conversations/[id]/files/route";
import { POST as interrupt } from "@/app/api/conversations/[id]/interrupt/route";
import { DELETE as discard } from "@/app/api/conversations/[id]/interrupts/[interruptId]/route";
import { DELETE as del, GET as getOne, PATCH as patch } from "@/app/api/conversations/[id]/route";
import { POST as stop } from "@/app/api/conversations/[id]/stop/route";
import { POST as create, GET as list } from "@/app/api/conversations/route";
import { GET as health } from "@/app/api/health/route";
import { GET as models } from "@/app/api/models/route";
import { GET as events } from "@/app/api/runs/[runId]/events/route";
import { GET as readSettings, PATCH as writeSettings } from "@/app/api/settings/route";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { users } from "@/lib/db/schema";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { client, cookieFrom, signIn, signUp, type TestClient } from "@/tests/support/accounts";
import { params, readEvents, setupAppEnv } from "@/tests/support/app-env";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";

const fake = setupFakeOllama();
const app = setupAppEnv(fake);

beforeAll(() => {
  process.env.AUTH_MODE = "required";
  resetConfigForTests();
});
afterAll(() => {
  delete process.env.AUTH_MODE;
  resetConfigForTests();
});

const PASSWORD = "correct horse battery";
let admin: TestClient;
let alice: TestClient;
let bob: TestClient;
let aliceConversation = "";
let aliceFile = "";
let aliceRun = "";

function uploadAs(who: TestClient, id: string) {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(makeTextPdf([["secret"]]))]), "secret.pdf");
  return upload(
    new Request(`http://127.0.0.1/api/conversations/${id}/files`, {
      method: "POST",
      headers: { cookie: who.cookie, origin: "http://127.0.0.1" },
      body: form,
    }),
    params({ id }),
  );
}

describe("accounts", () => {
  it("the first account becomes the admin and takes over the single-user conversations", async () => {
    // Data created before accounts were turned on belongs to nobody.
    const { createConversation } = await import("@/lib/db/conversations");
    const legacy = await createConversation(await getDb(), { title: "from single-user days", ownerId: null });
    const meBefore = (await (await me(client().request("/api/auth/me", "GET"))).json()) as Record<string, unknown>;
    expect(meBefore).toMatchObject({ accountsRequired: true, user: null, firstUser: true, signupOpen: true });
    admin = await signUp("Admin", PASSWORD);
    const meAfter = (await (await me(admin.request("/api/auth/me", "GET"))).json()) as {
      user: { role: string; username: string };
    };
    expect(meAfter.user).toMatchObject({ role: "admin", username: "admin" });
    const mine = (await (await list(admin.request("/api/conversations", "GET"))).json()) as {
      conversations: { id: string }[];
    };
    expect(mine.conversations.map((c) => c.id)).toEqual([legacy.id]);
  });

  it("stores passwords as scrypt hashes, never in clear", async () => {
    const [row] = await (await getDb()).select().from(users);
    expect(row?.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(row?.passwordHash).not.toContain(PASSWORD);
  });

  it("once the admin exists, sign-up is closed by default: a sign-up is refused and /me says so", async () => {
    const meNow = (await (await me(client().request("/api/auth/me", "GET"))).json()) as Record<string, unknown>;
    expect(meNow).toMatchObject({ firstUser: false, signupOpen: false });
    const refused = await signup(
      client().request("/api/auth/signup", "POST", { username: "early-bird", password: PASSWORD }),
    );
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("forbidden:signup_closed");
    expect(await (await adminSettings(admin.request("/api/admin/settings", "GET"))).json()).toEqual({
      signupOpen: false,
    });
  });

  it("the admin can reopen sign-up: later sign-ups are users; closed again, they are refused, and the admin can still add people", async () => {
    expect((await patchSettings(admin.request("/api/admin/settings", "PATCH", { signupOpen: true }))).status).toBe(200);
    alice = await signUp("alice");
    const aliceMe = (await (await me(alice.request("/api/auth/me", "GET"))).json()) as { user: { role: string } };
    expect(aliceMe.user.role).toBe("user");
    expect((await patchSettings(admin.request("/api/admin/settings", "PATCH", { signupOpen: false }))).status).toBe(
      200,
    );
    const refused = await signup(
      client().request("/api/auth/signup", "POST", { username: "mallory", password: PASSWORD }),
    );
    expect(refused.status).toBe(403);
    expect(
      (await addUser(admin.request("/api/admin/users", "POST", { username: "bob", password: PASSWORD }))).status,
    ).toBe(201);
    bob = await signIn("bob");
  });

  it("only an admin manages users and settings", async () => {
    expect((await writeSettings(alice.request("/api/settings", "PATCH", { searchBackend: "duckduckgo" }))).status).toBe(
      403,
    );
    expect((await listUsers(alice.request("/api/admin/users", "GET"))).status).toBe(403);
    expect((await patchSettings(alice.request("/api/admin/settings", "PATCH", { signupOpen: true }))).status).toBe(403);
    const all = (await (await listUsers(admin.request("/api/admin/users", "GET"))).json()) as {
      users: { username: string }[];
    };
    expect(all.users.map((u) => u.username)).toEqual(["admin", "alice", "bob"]);
  });

  it("the last admin cannot be disabled, demoted or removed", async () => {
    const adminId = (await (await getDb()).select().from(users))[0]?.id ?? "";
    expect((await removeUser(admin.request("", "DELETE"), params({ userId: adminId }))).status).toBe(409);
    expect((await patchUser(admin.request("", "PATCH", { role: "user" }), params({ userId: adminId }))).status).toBe(
      409,
    );
  });
});

describe("every route refuses the unauthenticated", () => {
  const anon = client();
  const id = "any-id";
  const cases: [string, () => Promise<Response>][] = [
    ["GET /api/conversations", () => list(anon.request("/api/conversations", "GET"))],
    ["POST /api/conversations", () => create(anon.request("/api/conversations", "POST", {}))],
    ["GET /api/conversations/:id", () => getOne(anon.request("", "GET"), params({ id }))],
    ["PATCH /api/conversations/:id", () => patch(anon.request("", "PATCH", { title: "x" }), params({ id }))],
    ["DELETE /api/conversations/:id", () => del(anon.request("", "DELETE"), params({ id }))],
    ["POST /api/conversations/:id/files", () => uploadAs(anon, id)],
    ["GET /api/conversations/:id/files/:fileId", () => download(anon.request("", "GET"), params({ id, fileId: "f" }))],
    ["POST /api/chat", () => chat(anon.request("/api/chat", "POST", { conversationId: id, message: "hi" }))],
    [
      "POST /api/conversations/:id/interrupt",
      () => interrupt(anon.request("", "POST", { message: "x" }), params({ id })),
    ],
    ["POST /api/conversations/:id/stop", () => stop(anon.request("", "POST"), params({ id }))],
    ["GET /api/runs/:runId/events", () => events(anon.request("/api/runs/r/events", "GET"), params({ runId: "r" }))],
    ["GET /api/models", () => models(anon.request("/api/models", "GET"))],
    ["GET /api/admin/users", () => listUsers(anon.request("/api/admin/users", "GET"))],
    [
      "PATCH /api/admin/settings",
      () => patchSettings(anon.request("/api/admin/settings", "PATCH", { signupOpen: true })),
    ],
    ["GET /api/settings", () => readSettings(anon.request("/api/settings", "GET"))],
    [
      "PATCH /api/settings",
      () => writeSettings(anon.request("/api/settings", "PATCH", { searchBackend: "duckduckgo" })),
    ],
  ];
  it.each(cases)("%s → 401", async (_name, call) => {
    const response = await call();
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unauthorized:session");
  });

  it("a forged or expired-looking cookie is not a session", async () => {
    const forged = client("ow_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    expect((await list(forged.request("/api/conversations", "GET"))).status).toBe(401);
  });
});

describe("one account never reaches another's data (404, like a missing id)", () => {
  beforeAll(async () => {
    const created = (await (
      await create(alice.request("/api/conversations", "POST", { title: "Alice's plans" }))
    ).json()) as {
      conversation: { id: string };
    };
    aliceConversation = created.conversation.id;
    const uploaded = (await (await uploadAs(alice, aliceConversation)).json()) as { id: string };
    aliceFile = uploaded.id;
    const stream = await readEvents(
      await chat(alice.request("/api/chat", "POST", { conversationId: aliceConversation, message: "hi" })),
    );
    aliceRun = String(stream[0]?.data.runId);
    await vi.waitFor(() => {
      if (getLiveRuns().forConversation(aliceConversation)) throw new Error("alice's run is still going");
    });
  });

  const asBob: [string, () => Promise<Response>][] = [
    ["read the conversation", () => getOne(bob.request("", "GET"), params({ id: aliceConversation }))],
    ["rename it", () => patch(bob.request("", "PATCH", { title: "pwned" }), params({ id: aliceConversation }))],
    ["delete it", () => del(bob.request("", "DELETE"), params({ id: aliceConversation }))],
    ["upload into it", () => uploadAs(bob, aliceConversation)],
    ["download its file", () => download(bob.request("", "GET"), params({ id: aliceConversation, fileId: aliceFile }))],
    ["chat in it", () => chat(bob.request("/api/chat", "POST", { conversationId: aliceConversation, message: "x" }))],
    [
      "interrupt its run",
      () => interrupt(bob.request("", "POST", { message: "x" }), params({ id: aliceConversation })),
    ],
    ["stop its run", () => stop(bob.request("", "POST"), params({ id: aliceConversation }))],
    [
      "switch its branch",
      () => selectBranch(bob.request("", "POST", { messageId: "any" }), params({ id: aliceConversation })),
    ],
    [
      "discard its unsent follow-up",
      () => discard(bob.request("", "DELETE"), params({ id: aliceConversation, interruptId: aliceRun })),
    ],
    [
      "replay its run's events",
      () => events(bob.request(`/api/runs/${aliceRun}/events`, "GET"), params({ runId: aliceRun })),
    ],
  ];
  it.each(asBob)("bob cannot %s: 404 not_found, as for an id that does not exist", async (_name, call) => {
    const response = await call();
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { code: string } };
    expect(body.error.code).toMatch(/^not_found:/);
  });

  it("after all of bob's tries alice's conversation, file and run are as she left them", async () => {
    const detail = (await (await getOne(alice.request("", "GET"), params({ id: aliceConversation }))).json()) as {
      conversation: { title: string };
      files: { id: string }[];
      messages: { role: string; content: string }[];
    };
    expect(detail.conversation.title).toBe("Alice's plans");
    expect(detail.files.map((file) => file.id)).toEqual([aliceFile]);
    expect(detail.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(detail.messages[0]?.content).toBe("hi");
  });

  it("bob's list and search never show alice's conversations", async () => {
    const found = (await (await list(bob.request("/api/conversations?q=plans", "GET"))).json()) as {
      conversations: unknown[];
    };
    expect(found.conversations).toEqual([]);
    const aliceView = (await (await getOne(alice.request("", "GET"), params({ id: aliceConversation }))).json()) as {
      conversation: { title: string };
    };
    expect(aliceView.conversation.title).toBe("Alice's plans");
  });
});

describe("sessions", () => {
  it("login issues a fresh token: a session id planted before login is never accepted (no fixation)", async () => {
    const planted = "ow_session=planted-by-attacker";
    const response = await login(
      client(planted).request("/api/auth/login", "POST", { username: "alice", password: PASSWORD }),
    );
    const issued = cookieFrom(response);
    expect(issued).not.toBe(planted);
    expect(issued).toMatch(/^ow_session=[\w-]{43}$/);
    expect((await list(client(planted).request("/api/conversations", "GET"))).status).toBe(401);
    expect((await list(client(issued).request("/api/conversations", "GET"))).status).toBe(200);
  });

  it("the cookie is HttpOnly and SameSite, and Secure behind https", async () => {
    const plain = await login(client().request("/api/auth/login", "POST", { username: "alice", password: PASSWORD }));
    expect(plain.headers.get("set-cookie")).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const viaTls = await login(
      client().request(
        "/api/auth/login",
        "POST",
        { username: "alice", password: PASSWORD },
        {
          "x-forwarded-proto": "https",
          origin: "https://127.0.0.1",
        },
      ),
    );
    expect(viaTls.headers.get("set-cookie")).toMatch(/; Secure$/);
  });

  it("logout revokes the session on the server", async () => {
    const session = await signIn("bob");
    expect((await logout(session.request("/api/auth/logout", "POST"))).status).toBe(204);
    expect((await list(session.request("/api/conversations", "GET"))).status).toBe(401);
  });

  it("disabling an account ends its sessions and refuses its logins", async () => {
    const carol = await (async () => {
      await addUser(admin.request("/api/admin/users", "POST", { username: "carol", password: PASSWORD }));
      return signIn("carol");
    })();
    const carolId = (await (await getDb()).select().from(users)).find((u) => u.username === "carol")?.id ?? "";
    expect((await patchUser(admin.request("", "PATCH", { disabled: true }), params({ userId: carolId }))).status).toBe(
      200,
    );
    expect((await list(carol.request("/api/conversations", "GET"))).status).toBe(401);
    const again = await login(client().request("/api/auth/login", "POST", { username: "carol", password: PASSWORD }));
    expect(again.status).toBe(401);
  });

  it("throttles failed logins per account: after 5 failures even the right password waits (429 with Retry-After)", async () => {
    await addUser(admin.request("/api/admin/users", "POST", { username: "dave", password: PASSWORD }));
    for (let i = 0; i < 5; i++) {
      const wrong = await login(
        client().request("/api/auth/login", "POST", { username: "dave", password: "wrong password" }),
      );
      expect(wrong.status).toBe(401);
    }
    const blocked = await login(client().request("/api/auth/login", "POST", { username: "dave", password: PASSWORD }));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("says the same for an unknown user and a wrong password", async () => {
    const unknown = await login(
      client().request("/api/auth/login", "POST", { username: "nobody", password: PASSWORD }),
    );
    const wrong = await login(
      client().request("/api/auth/login", "POST", { username: "alice", password: "nope nope nope" }),
    );
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual(await wrong.json());
  });
});

describe("cross-site requests (CSRF)", () => {
  it("refuses a state-changing request whose Origin is another site, even with a valid cookie", async () => {
    const response = await create(alice.request("/api/conversations", "POST", {}, { origin: "https://evil.example" }));
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("forbidden:origin");
  });

  it("refuses a cross-site request without Origin by its Sec-Fetch-Site, and an opaque null origin", async () => {
    const noOrigin = new Request("http://127.0.0.1/api/conversations", {
      method: "POST",
      headers: { cookie: alice.cookie, "sec-fetch-site": "cross-site", "content-type": "application/json" },
      body: "{}",
    });
    expect((await create(noOrigin)).status).toBe(403);
    expect((await create(alice.request("/api/conversations", "POST", {}, { origin: "null" }))).status).toBe(403);
  });

  it("refuses a cross-site multipart upload (a simple request browsers send without preflight)", async () => {
    const form = new FormData();
    form.set("file", new Blob([new Uint8Array(makeTextPdf([["x"]]))]), "x.pdf");
    const request = new Request(`http://127.0.0.1/api/conversations/${aliceConversation}/files`, {
      method: "POST",
      headers: { cookie: alice.cookie, origin: "https://evil.example" },
      body: form,
    });
    expect((await upload(request, params({ id: aliceConversation }))).status).toBe(403);
  });

  it("accepts same-origin requests, also behind a proxy that forwards host and scheme", async () => {
    expect((await create(alice.request("/api/conversations", "POST", {}))).status).toBe(201);
    const proxied = alice.request(
      "/api/conversations",
      "POST",
      {},
      {
        origin: "https://chat.example.org",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "chat.example.org",
      },
    );
    expect((await create(proxied)).status).toBe(201);
  });
});

describe("limits against abuse", () => {
  it("refuses a JSON body over the route's limit with 413", async () => {
    const response = await create(alice.request("/api/conversations", "POST", { title: "x".repeat(70_000) }));
    expect(response.status).toBe(413);
  });

  it("caps concurrent runs per user with a 429 and a retry hint", async () => {
    fake().script({ when: { hasTools: true }, hang: true }, { when: { hasTools: true }, hang: true });
    const started: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { conversation } = (await (await create(alice.request("/api/conversations", "POST", {}))).json()) as {
        conversation: { id: string };
      };
      const response = await chat(
        alice.request("/api/chat", "POST", { conversationId: conversation.id, message: "wait" }),
      );
      expect(response.status).toBe(200);
      started.push(conversation.id);
    }
    const { conversation } = (await (await create(alice.request("/api/conversations", "POST", {}))).json()) as {
      conversation: { id: string };
    };
    const third = await chat(
      alice.request("/api/chat", "POST", { conversationId: conversation.id, message: "one more" }),
    );
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("10");
    // Another user is not held back by alice's runs.
    const { conversation: bobs } = (await (await create(bob.request("/api/conversations", "POST", {}))).json()) as {
      conversation: { id: string };
    };
    const bobChat = await chat(bob.request("/api/chat", "POST", { conversationId: bobs.id, message: "hello" }));
    expect(bobChat.status).toBe(200);
    await readEvents(bobChat);
    for (const id of started) await stop(alice.request("", "POST"), params({ id }));
    await expect.poll(() => getLiveRuns().size).toBe(0);
  });

  it("the health route reveals no secrets or paths", async () => {
    const text = await (await health(client().request("/api/health", "GET"))).text();
    expect(text).not.toContain(app.dataDir());
    expect(text).not.toMatch(/secret|password|\/tmp|\/work/i);
  });
});
