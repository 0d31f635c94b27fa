import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { type TimelineEntry, timelineFromSteps } from "@/lib/client/run-view";
import type { StoredStep } from "@/lib/protocol/run-events";
import { renderHtml } from "@/tests/support/render-html";
import { ConversationFilesContext } from "../files/conversation-files-context";
import { ApprovalCard } from "./approval-card";

const request: StoredStep = {
  type: "approval_request",
  iteration: 1,
  seq: 4,
  at: 1000,
  approvalId: "a1",
  callId: "call_1",
  tool: "files__write_file",
  server: "files",
  toolName: "write_file",
  args: { path: "/tmp/notes.txt" },
  annotations: { destructiveHint: true, readOnlyHint: false },
  expiresAt: 301_000,
};
const decision = (value: "once" | "always" | "deny" | "timeout"): StoredStep => ({
  type: "approval_decision",
  iteration: 1,
  seq: 5,
  at: 2000,
  approvalId: "a1",
  callId: "call_1",
  tool: "files__write_file",
  decision: value,
  decidedBy: null,
});

const entryOf = (steps: StoredStep[]) =>
  timelineFromSteps(steps).find((entry) => entry.kind === "approval") as Extract<TimelineEntry, { kind: "approval" }>;

const render = (steps: StoredStep[], { runEnded = false, locale = "en" as "en" | "ja" } = {}) =>
  renderHtml(
    createElement(
      ConversationFilesContext.Provider,
      { value: { conversationId: "c1", names: new Map() } },
      createElement(ApprovalCard, { entry: entryOf(steps), runEnded }),
    ),
    locale,
  );

describe("the approval card", () => {
  it("a waiting call shows its tool, server, arguments and annotations, and the three decisions", () => {
    const html = render([request]);
    expect(html).toContain('data-state="waiting"');
    expect(html).toContain("write_file wants to run");
    expect(html).toContain("MCP server files · files__write_file");
    expect(html).toContain("/tmp/notes.txt");
    expect(html).toContain("may delete or overwrite");
    for (const id of ["approval-once", "approval-always", "approval-deny"]) expect(html).toContain(id);
  });

  it("a decided call says how it ended and offers no decision", () => {
    const html = render([request, decision("always")]);
    expect(html).toContain('data-state="always"');
    expect(html).toContain("Allowed without asking in this chat");
    expect(html).not.toContain("approval-once");
    expect(render([request, decision("timeout")])).toContain("Not decided in time: denied");
  });

  it("a call whose run ended before a decision says so, with no buttons", () => {
    const html = render([request], { runEnded: true });
    expect(html).toContain('data-state="undecided"');
    expect(html).not.toContain("approval-deny");
  });

  it("speaks Japanese", () => {
    expect(render([request], { locale: "ja" })).toContain("今回だけ許可");
  });

  it("a server that says nothing about its tool is shown as one that acts", () => {
    const bare = { ...request, annotations: {} } as StoredStep;
    expect(render([bare])).toContain("treat it as one that acts");
  });
});
