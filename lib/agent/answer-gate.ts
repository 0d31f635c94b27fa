import type { AnswerPart } from "@/lib/protocol/run-events";
import { PartialJsonObject } from "./partial-json";
import { CALL_MARKERS, HARMONY_WORDS, ShownTextFilter } from "./tool-call-forms";

/**
 * The fast path's gates (docs/architecture.md, "One turn"): while the tool loop's first reply
 * streams, they decide which of its text is the answer and show it at once. A gate holds back only
 * what might still be a tool call written as text; once the reply is whole, `end` is told whether
 * it was a call. A call is never shown as answer text: what was shown of it is discarded with a
 * second `answer start`, which the client understands as "reset".
 */
export interface AnswerGate {
  push(delta: string): void;
  /** The reply is whole. `answer` is its final answer, or null when it is a tool call (or no answer). */
  end(answer: string | null): void;
  /** Something of the reply is on screen as the answer (and stays, if `end` got an answer). */
  readonly shown: boolean;
}

type Verdict = "prose" | "hold" | "wait";

const FENCE = "```";
/** A fence with one of these info strings (or none) may carry a tool call. */
const CALL_FENCES = new Set(["", "json", "tool_call", "tool_code"]);
/** Openings that may be a call or thinking written as text (../tool-call-forms). */
const MARKERS: readonly string[] = [...CALL_MARKERS, ...HARMONY_WORDS];
const CALL_NAME = /^[A-Za-z_][\w.-]*/;

/**
 * How a native-mode reply begins: prose, a possible text-written tool call (any marker of the
 * known forms, JSON, or an offered tool's name followed by `(`), or too early to tell.
 */
export function classifyReplyStart(text: string, toolNames: readonly string[] = []): Verdict {
  const start = text.trimStart();
  if (start === "") return "wait";
  if (start.startsWith("{") || start.startsWith("[{")) return "hold";
  if (MARKERS.some((marker) => start.startsWith(marker))) return "hold";
  if (MARKERS.some((marker) => marker.startsWith(start))) return "wait";
  if (start === "[") return "wait";
  const name = CALL_NAME.exec(start.replace(/^\[/, ""))?.[0];
  if (name) {
    const rest = start.replace(/^\[/, "").slice(name.length);
    const offered = toolNames.some((tool) => tool.toLowerCase() === name.toLowerCase());
    if (offered && rest.startsWith("(")) return "hold";
    if (rest === "" && toolNames.some((tool) => tool.toLowerCase().startsWith(name.toLowerCase()))) return "wait";
  }
  if (start.startsWith("`")) {
    if (FENCE.startsWith(start)) return "wait";
    if (!start.startsWith(FENCE)) return "prose";
    const newline = start.indexOf("\n");
    if (newline === -1) return "wait";
    return CALL_FENCES.has(start.slice(FENCE.length, newline).trim().toLowerCase()) ? "hold" : "prose";
  }
  return "prose";
}

/**
 * Native mode: a reply is prose unless it begins like a tool call written as text. Prose is shown
 * without special tokens; once call markup appears in it, the rest is held until the reply is whole.
 */
export class TextAnswerGate implements AnswerGate {
  private held = "";
  private verdict: Verdict = "wait";
  private started = false;
  private sent = "";
  private readonly filter = new ShownTextFilter();
  /** Prose so far that might still end in the start of a marker. */
  private tail = "";

  constructor(
    private readonly emit: (part: AnswerPart) => void,
    private readonly toolNames: readonly string[] = [],
  ) {}

  get shown(): boolean {
    return this.sent !== "";
  }

  push(delta: string): void {
    if (this.verdict === "prose") {
      this.prose(delta);
      return;
    }
    this.held += delta;
    if (this.verdict === "hold") return;
    this.verdict = classifyReplyStart(this.held, this.toolNames);
    if (this.verdict === "prose") {
      const text = this.held;
      this.held = "";
      this.prose(text);
    }
  }

  /** Shows prose up to any call marker in it; from a marker on, the reply is held. */
  private prose(delta: string): void {
    const text = this.tail + delta;
    const at = CALL_MARKERS.map((marker) => text.indexOf(marker))
      .filter((index) => index !== -1)
      .sort((a, b) => a - b)[0];
    if (at !== undefined) {
      this.tail = "";
      this.verdict = "hold";
      this.show(this.filter.push(text.slice(0, at)) + this.filter.end());
      return;
    }
    // Keep back what could be the first characters of a marker.
    let keep = 0;
    for (let n = Math.min(text.length, 16); n > 0 && keep === 0; n--) {
      const end = text.slice(-n);
      if (CALL_MARKERS.some((marker) => marker.startsWith(end))) keep = n;
    }
    this.tail = text.slice(text.length - keep);
    this.show(this.filter.push(text.slice(0, text.length - keep)));
  }

  end(answer: string | null): void {
    if (answer === null) {
      if (this.started) this.emit({ status: "start" });
      this.sent = "";
      return;
    }
    // Held text that turned out to be prose, or a reply whose shown text is not the answer.
    if (answer.startsWith(this.sent)) this.show(answer.slice(this.sent.length));
    else {
      this.emit({ status: "start" });
      this.sent = "";
      this.show(answer);
    }
  }

  private show(text: string): void {
    if (!text) return;
    if (!this.started) {
      this.started = true;
      this.emit({ status: "start" });
    }
    this.sent += text;
    this.emit({ status: "delta", content: text });
  }
}

const TOOL_KEYS = ["tool_name", "tool", "name"];

/**
 * JSON mode: the `answer` field of a `final_answer` action, decoded as it arrives. Nothing is
 * shown while the action could still be a tool call (a tool key, or a `type` other than final_answer).
 */
export class JsonAnswerGate implements AnswerGate {
  private readonly object = new PartialJsonObject();
  private started = false;
  private sent = "";

  constructor(private readonly emit: (part: AnswerPart) => void) {}

  get shown(): boolean {
    return this.sent !== "";
  }

  private get mayShow(): boolean {
    const keys = this.object.keys;
    if (TOOL_KEYS.some((key) => keys.has(key))) return false;
    const type = this.object.value("type");
    return type === undefined || "final_answer".startsWith(type);
  }

  push(delta: string): void {
    this.object.push(delta);
    if (!this.mayShow) return;
    const answer = this.object.value("answer") ?? "";
    if (answer.length > this.sent.length && answer.startsWith(this.sent)) this.show(answer.slice(this.sent.length));
  }

  end(answer: string | null): void {
    if (answer?.startsWith(this.sent)) {
      this.show(answer.slice(this.sent.length));
      return;
    }
    if (this.started) this.emit({ status: "start" });
    this.sent = "";
    if (answer !== null) this.show(answer);
  }

  private show(text: string): void {
    if (!text) return;
    if (!this.started) {
      this.started = true;
      this.emit({ status: "start" });
    }
    this.sent += text;
    this.emit({ status: "delta", content: text });
  }
}
