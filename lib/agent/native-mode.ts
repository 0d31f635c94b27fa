import type { ToolSpec } from "@/lib/llm/types";
import { TextAnswerGate } from "./answer-gate";
import type { RunState } from "./run-state";
import { cleanToolName, recogniseToolCalls, resolveToolName, shownAnswer } from "./tool-call-forms";

/**
 * Native function calling: one response may hold several calls, run in parallel; all
 * tool messages follow their assistant message directly, matched by call id; interrupts are
 * drained only after them. A response without calls is the final answer; before any tool has run,
 * it streams out as it is written (the fast path); once on screen it stands, whatever interrupt
 * arrives meanwhile, but a follow-up that waits when it would begin suppresses it.
 * A call written as text in any known form (./tool-call-forms) is a call; a reply that is nothing
 * but call markup that cannot run gets one error observation and another try, then a clear message.
 */
export async function runNativeLoop(state: RunState, tools: ToolSpec[]): Promise<string> {
  const names = tools.map((tool) => tool.name);
  let callSeq = 0;
  let unrunnable = 0;
  for (;;) {
    const sink = state.openAnswer();
    const gate = sink ? new TextAnswerGate(sink.emit, names) : null;
    const reply = await state.callModel(
      { tools: state.toolsDisabled ? undefined : tools },
      gate ? (delta) => gate.push(delta) : undefined,
    );
    const named = (name: string) => resolveToolName(name, names) ?? cleanToolName(name);
    let calls = reply.toolCalls.map((call) => ({ id: call.id, name: named(call.name), args: call.arguments }));
    let content = reply.content;
    let family: string | null = null;
    if (calls.length === 0 && !state.toolsDisabled) {
      // A call written as text in content is still a call.
      const recognition = recogniseToolCalls(reply.content, names, { maxChars: state.toolCallTextMaxChars });
      family = recognition.family;
      calls = recognition.calls.map((call) => ({
        id: `call_text_${state.iterations}_${callSeq++}`,
        name: named(call.name),
        args: call.arguments,
      }));
      if (family) content = "";
    }

    if (family && calls.length === 0) {
      state.push({ role: "assistant", content: reply.content });
      if (unrunnable++ > 0) {
        const message = state.say("unrunnable_call_answer");
        gate?.end(message);
        if (gate?.shown && !sink?.withheld) state.direct = true;
        return message;
      }
      gate?.end(null);
      state.push({ role: "user", content: state.say("unrunnable_call", { tools: names.join(", ") }) });
      continue;
    }
    unrunnable = 0;
    if (calls.length === 0) content = shownAnswer(content);
    gate?.end(calls.length === 0 ? content : null);

    if (calls.length === 0) {
      state.push({ role: "assistant", content, ...(reply.reasoning ? { reasoning: reply.reasoning } : {}) });
      // A direct answer is on screen: it stands, and interrupts wait for the next turn (`done`).
      if (gate?.shown && !sink?.withheld) {
        state.direct = true;
        return content;
      }
      // An interrupt that arrives before the final answer is shown suppresses it: the loop goes on.
      if (state.drainInterrupts()) continue;
      return content;
    }

    state.push({
      role: "assistant",
      content,
      toolCalls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.args })),
      ...(reply.reasoning ? { reasoning: reply.reasoning } : {}),
    });
    const outcomes = await state.runCalls(calls);
    for (const outcome of outcomes) {
      state.push(
        { role: "tool", content: outcome.observation, toolCallId: outcome.id, toolName: outcome.name },
        { as: "tool_result", tool: outcome.name },
      );
    }
    state.announceBudget();
    state.drainInterrupts();
  }
}
