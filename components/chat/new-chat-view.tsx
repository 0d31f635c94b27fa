"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect } from "react";
import { ModelNotice } from "@/components/models/model-notice";
import { ModelPicker } from "@/components/models/model-picker";
import { useModels } from "@/components/models/models-context";
import { useNewChatModel } from "@/components/models/use-new-chat-model";
import { api } from "@/lib/client/api";
import { ChatHeader } from "./chat-header";
import { useChatRunsContext } from "./chat-runs-context";
import { Composer } from "./composer";

/** `/`: the empty "start a chat" screen. Sending creates the conversation, then opens it. */
export function NewChatView() {
  const router = useRouter();
  const { send } = useChatRunsContext();
  const { status, models, defaultModel, find } = useModels();
  const [remembered, remember] = useNewChatModel();
  // A remembered model that is no longer installed falls back to the default.
  const model = remembered && (status !== "ready" || find(remembered)) ? remembered : defaultModel;

  useEffect(() => {
    document.title = "ollama-web";
  }, []);

  const onSend = useCallback(
    async (message: string) => {
      let conversationId: string;
      try {
        conversationId = (await api.createConversation(model ? { model } : {})).conversation.id;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
      const result = await send({ conversationId, message, model: model ?? undefined });
      if (!result.ok) {
        // Nothing was said in it: leave no empty conversation behind.
        await api.deleteConversation(conversationId).catch((error: unknown) => {
          console.error("[chat] could not remove the unused conversation", error);
        });
        return result.error.message;
      }
      router.push(`/c/${conversationId}`);
      return null;
    },
    [model, send, router],
  );

  return (
    <>
      <ChatHeader title="New chat">
        <ModelPicker value={model} onChange={remember} />
      </ChatHeader>
      <div className="flex flex-1 flex-col items-center overflow-y-auto px-3 sm:px-4">
        <div className="flex w-full max-w-3xl flex-1 flex-col justify-center gap-6 pb-[12vh]">
          <div className="text-center">
            <h2 className="text-2xl font-semibold tracking-tight sm:text-[1.75rem]">What can I help with?</h2>
            <p className="mt-2 text-sm text-muted-foreground">
              {status === "ready" && models.length === 0 ? (
                <>
                  No models are installed yet. Pull one with{" "}
                  <code className="rounded bg-muted px-1 py-0.5 font-mono text-[0.8125rem]">ollama pull llama3.2</code>.
                </>
              ) : model ? (
                <>
                  Chatting with <span className="font-medium text-foreground">{model}</span>, running on your machine.
                </>
              ) : (
                "Your models, running on your machine."
              )}
            </p>
          </div>
          <div className="flex flex-col gap-2">
            <Composer onSend={onSend} onStop={async () => null} running={false} autoFocus />
            <ModelNotice model={model} />
          </div>
        </div>
      </div>
    </>
  );
}
