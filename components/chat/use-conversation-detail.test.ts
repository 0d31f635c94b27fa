import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/client/api";
import type { ConversationDetail } from "@/lib/client/types";
import { conversationSummary } from "@/tests/support/conversation-summary";
import { detailState } from "./use-conversation-detail";

const detail: ConversationDetail = {
  conversation: conversationSummary({ id: "c1" }),
  messages: [],
  files: [],
  activeRunId: null,
  interrupts: [],
};

describe("conversation page state", () => {
  it("is loading until the conversation arrives", () => {
    expect(detailState(undefined, undefined)).toEqual({ status: "loading" });
  });

  it("shows a failed first read as an error", () => {
    const error = new ApiError(0, "client:network", "Cannot reach the server.");
    expect(detailState(undefined, error)).toEqual({ status: "error", error });
  });

  it("keeps the shown conversation when a background reload fails", () => {
    expect(detailState(detail, new ApiError(0, "client:network", "Cannot reach the server."))).toEqual({
      status: "ready",
      detail,
    });
  });

  it("shows a conversation that is gone (404) as not found, even one shown before", () => {
    const gone = new ApiError(404, "not_found:conversation", "Conversation not found.");
    expect(detailState(undefined, gone)).toEqual({ status: "not-found" });
    expect(detailState(detail, gone)).toEqual({ status: "not-found" });
  });
});
