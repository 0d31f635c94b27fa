import type { ToolSpec } from "@/lib/llm/types";
import { TextAnswerGate } from "./answer-gate";
import type { RunState } from "./run-state";
import { recoverTextToolCalls } from "./text-tool-calls";

/**
 * Native function calling: one response may hold several calls, run in parallel; all
 * tool messages follow their assistant message directly, matched by call id; interrupts are
 * drained only after them. A response without calls is the final answer; before any tool has run,
 * it streams out as it is written (the fast path); once on screen it stands, whatever interrupt
 * arrives meanwhile, but a follow-up that waits when it would begin suppresses it.
 */
export async function runNativeLoop(state: RunState, tools: ToolSpec[]): Promise<string> {
  const names = tools.map((tool) => tool.name);
  let callSeq = 0;
  for (;;) {
    const sink = state.openAnswer();
    const gate = sink ? new TextAnswerGate(sink.emit) : null;
    const reply = await state.callModel(
      { tools: state.toolsDisabled ? undefined : tools },
      gate ? (delta) => gate.push(delta) : undefined,
    );
    let calls = reply.toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.arguments }));
    let content = reply.content;
    if (calls.length === 0 && !state.toolsDisabled) {
      // A call written as JSON text in content is still a call.
      calls = recoverTextToolCalls(reply.content, names).map((call) => ({
        id: `call_text_${state.iterations}_${callSeq++}`,
        name: call.name,
        args: call.arguments,
      }));
      if (calls.length > 0) content = "";
    }

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
