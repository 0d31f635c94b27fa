import { jsonSchema, type ModelMessage, type ToolSet, tool } from "ai";
import type { ChatMessage, ToolSpec } from "../types";

/**
 * Our messages and tools as the AI SDK takes them (docs/architecture.md, "OpenAI-compatible
 * servers"). OpenAI's API pairs every assistant tool call with its result: a call whose result is
 * not in the history (cut by compaction) is left out, and a result whose call is not there goes as
 * the user's text, so the request is always one these servers accept.
 */

/** Images travel as base64 without their type (Ollama's way); their first bytes say what they are. */
export function imageMediaType(base64: string): string {
  if (base64.startsWith("iVBOR")) return "image/png";
  if (base64.startsWith("R0lGOD")) return "image/gif";
  if (base64.startsWith("UklGR")) return "image/webp";
  return "image/jpeg";
}

export function toModelMessages(messages: ChatMessage[]): ModelMessage[] {
  const answered = new Set(messages.flatMap((message) => (message.role === "tool" ? [message.toolCallId] : [])));
  const called = new Set<string>();
  return messages.map((message): ModelMessage => {
    switch (message.role) {
      case "system":
        return { role: "system", content: message.content };
      case "user":
        if (!message.images?.length) return { role: "user", content: message.content };
        return {
          role: "user",
          content: [
            { type: "text", text: message.content },
            ...message.images.map((image) => ({ type: "image" as const, image, mediaType: imageMediaType(image) })),
          ],
        };
      case "assistant": {
        const calls = (message.toolCalls ?? []).filter((call) => answered.has(call.id));
        for (const call of calls) called.add(call.id);
        if (!calls.length && !message.reasoning) return { role: "assistant", content: message.content };
        return {
          role: "assistant",
          content: [
            ...(message.reasoning ? [{ type: "reasoning" as const, text: message.reasoning }] : []),
            ...(message.content ? [{ type: "text" as const, text: message.content }] : []),
            ...calls.map((call) => ({
              type: "tool-call" as const,
              toolCallId: call.id,
              toolName: call.name,
              input: call.arguments,
            })),
          ],
        };
      }
      default:
        if (!called.has(message.toolCallId)) {
          return { role: "user", content: `${message.toolName} returned:\n${message.content}` };
        }
        return {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: message.toolCallId,
              toolName: message.toolName,
              output: { type: "text", value: message.content },
            },
          ],
        };
    }
  });
}

/** Tools without `execute`: the SDK hands their calls back, and our engine runs them. */
export function toToolSet(tools: ToolSpec[] | undefined): ToolSet | undefined {
  if (!tools?.length) return undefined;
  return Object.fromEntries(
    tools.map((spec) => [
      spec.name,
      tool({
        description: spec.description,
        inputSchema: jsonSchema(spec.parameters as Parameters<typeof jsonSchema>[0]),
      }),
    ]),
  );
}
