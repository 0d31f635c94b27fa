// Which model answers a turn: a vanished model is refused before anything is stored, with the
// installed replacement to offer; images go to the vision role's model when the chosen one is blind.
import { afterEach, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as upload } from "@/app/api/conversations/[id]/files/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import { GET as listModels } from "@/app/api/models/route";
import { updateSettings } from "@/lib/admin-settings";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { listMessages } from "@/lib/db/messages";
import { listRuns } from "@/lib/db/runs";
import { DEFAULT_MODELS } from "@/tests/fake-ollama/server";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { expectApiError, jsonRequest, newConversation, params, readEvents, setupAppEnv } from "@/tests/support/app-env";
import { encodedImage } from "@/tests/support/image-fixtures";

const fake = setupFakeOllama();
setupAppEnv(fake);

afterEach(async () => {
  await updateSettings(await getDb(), { roles: { general: null, vision: null } });
});

async function uploadImage(conversationId: string): Promise<string> {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(encodedImage("png", 64, 32))]), "chart.png");
  const response = await upload(
    new Request(`http://127.0.0.1/api/conversations/${conversationId}/files`, { method: "POST", body: form }),
    params({ id: conversationId }),
  );
  return ((await response.json()) as { id: string }).id;
}

const send = (body: unknown) => chat(jsonRequest("/api/chat", "POST", body));

function deleteModel(model: string): Promise<Response> {
  return fetch(`${fake().url}/api/delete`, {
    method: "DELETE",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model }),
  });
}

const stored = async (id: string) => ({
  messages: await listMessages(await getDb(), { conversationId: id }),
  runs: await listRuns(await getDb(), { conversationId: id }),
});

async function errorBody(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string; details: Record<string, unknown> } })
    .error;
}

describe("a model that disappears", () => {
  it("a send with a model Ollama no longer lists is refused with 409 and the same model under another tag, storing nothing", async () => {
    fake().setModels([
      ...DEFAULT_MODELS,
      { ...DEFAULT_MODELS[1], name: "qwen3:4b" } as (typeof DEFAULT_MODELS)[number],
    ]);
    const id = await newConversation("qwen3:8b");
    expect((await deleteModel("qwen3:8b")).status).toBe(200);
    const response = await send({ conversationId: id, message: "hi", model: "qwen3:8b" });
    expect(response.status).toBe(409);
    const error = await errorBody(response);
    expect(error.code).toBe("conflict:model_missing");
    expect(error.message).toContain("qwen3:8b");
    expect(error.details).toEqual({ model: "qwen3:8b", replacement: "qwen3:4b" });
    expect(await stored(id)).toEqual({ messages: [], runs: [] });
    expect(fake().chatRequests()).toHaveLength(0);
  });

  it("without the same model under another tag, the replacement is the general role's model", async () => {
    await updateSettings(await getDb(), { roles: { general: "gemma:2b" } });
    const id = await newConversation("qwen3:8b");
    await deleteModel("qwen3:8b");
    const error = await errorBody(await send({ conversationId: id, message: "hi" }));
    expect(error.details).toEqual({ model: "qwen3:8b", replacement: "gemma:2b" });
  });

  it("a conversation whose model vanished answers once the replacement is sent", async () => {
    const id = await newConversation("qwen3:8b");
    await deleteModel("qwen3:8b");
    const { details } = await errorBody(await send({ conversationId: id, message: "hi" }));
    const response = await send({ conversationId: id, message: "hi", model: details.replacement });
    expect(response.status).toBe(200);
    const events = await readEvents(response);
    expect(events.find((event) => event.event === "run")?.data.model).toBe("llama3.2:latest");
  });
});

describe("an image for a model without vision", () => {
  it("runs on the vision role's model, with the image, recorded on the run; the conversation keeps its model", async () => {
    await updateSettings(await getDb(), { roles: { vision: "llava:7b" } });
    const id = await newConversation("llama3.2:latest");
    const fileId = await uploadImage(id);
    const response = await send({ conversationId: id, message: "what is this?", attachmentIds: [fileId] });
    expect(response.status).toBe(200);
    const events = await readEvents(response);
    expect(events.find((event) => event.event === "run")?.data.model).toBe("llava:7b");
    await expect.poll(() => getLiveRuns().forConversation(id)).toBeUndefined();
    const requests = fake().chatRequests();
    expect(new Set(requests.map((request) => request.body.model))).toEqual(new Set(["llava:7b"]));
    expect(requests[0]?.body.messages.at(-1).images).toHaveLength(1);
    const detail = (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as {
      conversation: { model: string };
      messages: { role: string; run?: { model: string } }[];
    };
    expect(detail.conversation.model).toBe("llama3.2:latest");
    expect(detail.messages.find((message) => message.role === "assistant")?.run?.model).toBe("llava:7b");
  });

  it("sends the vision role's keep-alive with the requests its model answers", async () => {
    await updateSettings(await getDb(), { roles: { vision: "llava:7b" }, keepAlive: { vision: "-1", general: "1m" } });
    const id = await newConversation("llama3.2:latest");
    const fileId = await uploadImage(id);
    await readEvents(await send({ conversationId: id, message: "what is this?", attachmentIds: [fileId] }));
    await expect.poll(() => getLiveRuns().forConversation(id)).toBeUndefined();
    const answers = fake()
      .chatRequests()
      .filter((request) => request.body.model === "llava:7b");
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((request) => request.body.keep_alive === -1)).toBe(true);
    await updateSettings(await getDb(), { keepAlive: { vision: null, general: null } });
  });

  it("is refused with 409 and nothing stored when no vision model is set", async () => {
    const id = await newConversation("llama3.2:latest");
    const fileId = await uploadImage(id);
    const response = await send({ conversationId: id, message: "what is this?", attachmentIds: [fileId] });
    const message = await expectApiError(response, 409, "conflict:no_vision_model");
    expect(message).toContain("llama3.2:latest");
    expect(message).toContain("Settings");
    expect(await stored(id)).toEqual({ messages: [], runs: [] });
    expect(fake().chatRequests()).toHaveLength(0);
  });

  it("is refused with 409 when the vision model is no longer installed", async () => {
    await updateSettings(await getDb(), { roles: { vision: "llava:7b" } });
    const id = await newConversation("llama3.2:latest");
    const fileId = await uploadImage(id);
    await deleteModel("llava:7b");
    const response = await send({ conversationId: id, message: "what is this?", attachmentIds: [fileId] });
    expect(await expectApiError(response, 409, "conflict:no_vision_model")).toContain("llava:7b");
    expect(await stored(id)).toEqual({ messages: [], runs: [] });
  });

  it("the model list names the vision model only while it is set, installed and can see", async () => {
    const visionModel = async () =>
      ((await (await listModels(jsonRequest("/api/models", "GET"))).json()) as { visionModel: string | null })
        .visionModel;
    expect(await visionModel()).toBeNull();
    await updateSettings(await getDb(), { roles: { vision: "llava:7b" } });
    expect(await visionModel()).toBe("llava:7b");
    await updateSettings(await getDb(), { roles: { vision: "gemma:2b" } });
    expect(await visionModel()).toBeNull();
    await updateSettings(await getDb(), { roles: { vision: "llava:7b" } });
    await deleteModel("llava:7b");
    expect(await visionModel()).toBeNull();
  });

  it("a model with vision answers the image itself, whatever the vision role", async () => {
    await updateSettings(await getDb(), { roles: { vision: "llava:7b" } });
    fake().setModels([
      ...DEFAULT_MODELS,
      { ...DEFAULT_MODELS[3], name: "gemma3:4b" } as (typeof DEFAULT_MODELS)[number],
    ]);
    const id = await newConversation("gemma3:4b");
    const fileId = await uploadImage(id);
    await readEvents(await send({ conversationId: id, message: "what is this?", attachmentIds: [fileId] }));
    await expect.poll(() => getLiveRuns().forConversation(id)).toBeUndefined();
    expect(fake().chatRequests()[0]?.body.model).toBe("gemma3:4b");
  });
});
