import { AppError } from "@/lib/errors";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { AgentStep, ApprovalDecision, ApprovalOutcome } from "@/lib/protocol/run-events";
import { type ToolOutcome, toolError } from "@/lib/tools/outcome";
import type { ToolConsent, ToolContext, ToolDefinition, ToolRegistry } from "@/lib/tools/registry";

/**
 * The approval gate (docs/security.md, "Tools that act need the user's consent"). A run's tools pass
 * through `gateToolCalls`: a call of a tool whose policy is `ask` (an MCP tool not marked read-only, unless
 * the admin said otherwise) is shown as an approval card and waits, with no client needed, until the user
 * decides, the wait times out (a denial) or the run is stopped. A denied call is not run: the model reads
 * why. Framework-free: the run's steps, its pending approvals and the conversation's "always" list are
 * passed in.
 */

export interface Decided {
  decision: ApprovalOutcome;
  /** The account that decided; null in single-user mode or for a timeout. */
  decidedBy: string | null;
}

interface Waiting {
  tool: string;
  settle: (decided: Decided) => void;
}

/** The approvals one run waits for, by id: where a decision from the API reaches the waiting call. */
export class PendingApprovals {
  private readonly waiting = new Map<string, Waiting>();

  /** How many calls wait for a decision now. */
  get size(): number {
    return this.waiting.size;
  }

  /**
   * Settles a waiting approval; `always` also settles the run's other calls of the same tool that
   * wait. 409 when nothing waits under this id (decided already, timed out, or the run ended).
   */
  decide(approvalId: string, decision: ApprovalDecision, decidedBy: string | null): void {
    const waiting = this.waiting.get(approvalId);
    if (!waiting) {
      throw new AppError("conflict:no_pending_approval", "This tool call is not waiting for a decision any more.", {
        details: { approvalId },
      });
    }
    const settled = [...this.waiting].filter(
      ([id, other]) => id === approvalId || (decision === "always" && other.tool === waiting.tool),
    );
    for (const [, other] of settled) other.settle({ decision, decidedBy });
  }

  /** Waits for the approval's decision: `timeout` after `timeoutMs`; rejects with the signal's reason on stop. */
  wait(approvalId: string, tool: string, { signal, timeoutMs }: { signal: AbortSignal; timeoutMs: number }) {
    signal.throwIfAborted();
    return new Promise<Decided>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.waiting.delete(approvalId);
      };
      const onAbort = () => {
        finish();
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        finish();
        resolve({ decision: "timeout", decidedBy: null });
      }, timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(approvalId, {
        tool,
        settle: (decided) => {
          finish();
          resolve(decided);
        },
      });
    });
  }
}

/** "Always for this tool in this chat", stored with the conversation. */
export interface AlwaysAllowed {
  has(tool: string): Promise<boolean>;
  add(tool: string, decidedBy: string | null): Promise<void>;
}

export interface ApprovalGateOptions {
  pending: PendingApprovals;
  always: AlwaysAllowed;
  /** Emits a step of the run: the approval card, then how it ended. */
  onStep: (step: Extract<AgentStep, { type: "approval_request" | "approval_decision" }>) => void;
  /** TOOL_APPROVAL_TIMEOUT_S, in ms. */
  timeoutMs: number;
  language: PromptLanguage;
}

/** The registry with every tool that has a consent wrapped in the approval gate; the others as they are. */
export function gateToolCalls(registry: ToolRegistry, options: ApprovalGateOptions): ToolRegistry {
  return registry.mapped((tool) => (tool.consent ? gated(tool, tool.consent, options) : tool));
}

function gated(tool: ToolDefinition, consent: ToolConsent, options: ApprovalGateOptions): ToolDefinition {
  const say = (key: "tool_denied" | "tool_approval_timeout" | "tool_policy_denied") =>
    toolError(
      "not_approved",
      prompt(options.language, key, { tool: tool.name, seconds: String(Math.round(options.timeoutMs / 1000)) }),
    );
  return {
    ...tool,
    execute: async (args: unknown, context: ToolContext): Promise<ToolOutcome> => {
      await consent.refresh?.();
      const policy = consent.policy();
      if (policy === "deny") return say("tool_policy_denied");
      if (policy === "ask" && !(await options.always.has(tool.name))) {
        const { decision } = await ask(tool, consent, args, context, options);
        if (decision === "deny") return say("tool_denied");
        if (decision === "timeout") return say("tool_approval_timeout");
      }
      return tool.execute(args, context);
    },
  };
}

async function ask(
  tool: ToolDefinition,
  consent: ToolConsent,
  args: unknown,
  context: ToolContext,
  options: ApprovalGateOptions,
): Promise<Decided> {
  const approvalId = crypto.randomUUID();
  const iteration = context.call?.iteration ?? 0;
  const callId = context.call ? { callId: context.call.id } : {};
  options.onStep({
    type: "approval_request",
    iteration,
    approvalId,
    ...callId,
    tool: tool.name,
    server: consent.server,
    toolName: consent.toolName,
    args,
    annotations: consent.annotations,
    expiresAt: Date.now() + options.timeoutMs,
  });
  const decided = await options.pending.wait(approvalId, tool.name, {
    signal: context.signal,
    timeoutMs: options.timeoutMs,
  });
  options.onStep({ type: "approval_decision", iteration, approvalId, ...callId, tool: tool.name, ...decided });
  if (decided.decision === "always") {
    // The user approved this call either way: a failure to remember it only means being asked again.
    await options.always.add(tool.name, decided.decidedBy).catch((error: unknown) => {
      console.error(`[run] could not store "always allow ${tool.name}"`, error);
    });
  }
  return decided;
}
