import type { OpenAICompatibleServer } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import type { LLM } from "../types";
import { createOpenAICompatibleLLM } from "./openai-llm";
import type { ServerModel } from "./server-models";

/**
 * Whether a model of an OpenAI-compatible server takes tools and JSON mode. These servers do not say
 * (it hangs on their start flags: llama-server's `--jinja`, vLLM's `--enable-auto-tool-choice`), so
 * one tiny call asks each, once per model (docs/architecture.md, "OpenAI-compatible servers"): the
 * answer is kept per server, name and identity, and asked again when the model under the name changes.
 */

export interface ProbedAbilities {
  tool_call: boolean;
  json_mode: boolean;
}

export type ProbedAbility = keyof ProbedAbilities;

/** A probe's words: short, no thinking, a handful of tokens at most. */
const PROBE_TOKENS = 8;
const PROBE_QUESTION = [{ role: "user" as const, content: "Say hello." }];
const PROBE_TOOL = {
  name: "get_time",
  description: "Returns the current time.",
  parameters: { type: "object", properties: {} },
};

/** Words of a server's refusal of what a probe asks (llama-server says it with a 500). */
const ABOUT_THE_ASK = /tool|jinja|response_format|json|schema|grammar/i;

/**
 * The server refused what was asked: a 4xx, or a 5xx whose message is about tools or the output
 * format. Any other 5xx (an overloaded or restarting server) is no answer: nothing is kept, the
 * next call asks again.
 */
function refused(error: unknown): boolean {
  if (!(error instanceof AppError) || error.code !== "upstream:openai_compatible") return false;
  const { status, message } = (error.details ?? {}) as { status?: number; message?: string };
  if (typeof status === "number" && status < 500) return true;
  return ABOUT_THE_ASK.test(message ?? "");
}

/**
 * Tools as the real calls send them (`tool_choice` "auto"; "required" or a named tool would pass on
 * vLLM without its tool parser): a server not set up for tool calls refuses the request (vLLM 400,
 * llama-server 500), one that is answers it.
 */
async function probeTools(llm: LLM): Promise<boolean> {
  try {
    await llm.chat(PROBE_QUESTION, { tools: [PROBE_TOOL], thinking: false });
    return true;
  } catch (error) {
    if (refused(error)) return false;
    throw error;
  }
}

/** `response_format: json_object`: refused, or a reply that begins as prose, is no JSON mode. */
async function probeJson(llm: LLM): Promise<boolean> {
  try {
    const reply = await llm.chat(PROBE_QUESTION, { output: { type: "json" }, thinking: false });
    const start = reply.content.trimStart();
    return start === "" || start.startsWith("{") || start.startsWith("[");
  } catch (error) {
    if (refused(error)) return false;
    throw error;
  }
}

export type Prober = (
  server: OpenAICompatibleServer,
  model: string,
  which: ProbedAbility,
  timeoutMs: number,
) => Promise<boolean>;

export const probeAbility: Prober = (server, model, which, timeoutMs) => {
  const llm = createOpenAICompatibleLLM({
    server,
    model,
    abilities: { tool_call: true, json_mode: true, thinking: false, vision: false },
    contextLength: 0,
    maxOutputTokens: PROBE_TOKENS,
    sampling: { temperature: 0 },
    timeoutMs,
  });
  return which === "tool_call" ? probeTools(llm) : probeJson(llm);
};

/**
 * The probes' answers, one per (server, model name, identity, ability). A probe that failed without
 * an answer (server away, key refused, timeout) is not kept: its error goes to the caller, and the
 * next call asks again.
 */
export class AbilityProbes {
  private readonly answers = new Map<string, Promise<boolean>>();
  private readonly settled = new Map<string, boolean>();

  constructor(
    private readonly prober: Prober = probeAbility,
    private readonly timeoutMs = 30_000,
  ) {}

  private key(server: OpenAICompatibleServer, model: ServerModel, which: ProbedAbility): string {
    return JSON.stringify([server.label.toLowerCase(), server.baseUrl, model.name, model.identity, which]);
  }

  /** The ability, probed the first time it is asked of this model. */
  get(server: OpenAICompatibleServer, model: ServerModel, which: ProbedAbility): Promise<boolean> {
    const key = this.key(server, model, which);
    let answer = this.answers.get(key);
    if (!answer) {
      answer = this.prober(server, model.name, which, this.timeoutMs);
      this.answers.set(key, answer);
      answer.then(
        (value) => this.settled.set(key, value),
        () => this.answers.get(key) === answer && this.answers.delete(key),
      );
    }
    return answer;
  }

  /** What a probe found, without probing (the model list: showing it costs the servers nothing). */
  known(server: OpenAICompatibleServer, model: ServerModel, which: ProbedAbility): boolean | undefined {
    return this.settled.get(this.key(server, model, which));
  }
}
