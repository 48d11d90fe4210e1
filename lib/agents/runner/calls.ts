import { clipUtf8, clipUtf8Tail, LIMITS, TOOL_LIMITS } from "@/lib/core/protocol";
import type { EventInput } from "@/lib/agents/sdk/types";
import type { AgentEvent } from "./adapter";
import { redact } from "@/lib/core/protocol/redact";

type Started = Extract<AgentEvent, { type: "call_started" }>;
type Finished = Extract<AgentEvent, { type: "call_finished" }>;

/** Where a tracker's events go: the translator's sink. */
export interface CallSink {
  post(...events: EventInput[]): unknown;
  /**
   * Store a whole output in the object store and post `event` with its `output_ref`, in
   * order with everything else posted ([RN3]). Only a runner has an object store; without
   * this, an output over the inline limit keeps only its tail and its size.
   */
  postWithOutput?(output: Buffer, event: EventInput): unknown;
  /** The sender's own masking ([RN4]: a runner's job secrets by value), before anything is clipped. */
  maskText?(text: string): string;
}

/** What a tracker must remember across restarts of the process that owns it (`chips connect`). */
export interface CallsState {
  launch: number;
  /** The agent's call id → the call_id it was posted with, its tool, and when it started (ms). */
  open: Record<string, { id: string; at: number }>;
}

/** Calls kept open at most: a source that never reports ends must not grow the state forever. */
const KEPT_OPEN = 500;

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/**
 * An agent's tool calls as `tool.started` / `tool.finished` ([TOOL3]): every text redacted
 * (the sender's own mask, then credential patterns) before it is clipped to its limit on
 * UTF-8 boundaries — the summary to one line, an output to its tail — the time from the
 * source's clock or, when it has none, this process's; a whole output over the inline limit
 * stored in the object store when the sink has one.
 */
export class CallTracker {
  private launch: number;
  private open: Map<string, { id: string; at: number }>;

  constructor(
    private sink: CallSink,
    private actor: { kind: "harness"; id: string },
    saved?: CallsState,
  ) {
    this.launch = saved?.launch ?? 0;
    this.open = new Map(Object.entries(saved?.open ?? {}));
  }

  state(): CallsState {
    return { launch: this.launch, open: Object.fromEntries(this.open) };
  }

  /** A new launch of the CLI: ids that are unique only within one launch start afresh. */
  relaunched() {
    this.launch++;
  }

  private text(s: string) {
    return redact(this.sink.maskText ? this.sink.maskText(s) : s);
  }

  private callId(e: { id: string; perLaunch?: boolean }) {
    return clipUtf8(e.perLaunch ? `${e.id}@${this.launch}` : e.id, TOOL_LIMITS.callId, "");
  }

  /** What a call is, redacted and clipped: tool, one-line summary, input, paths. */
  private what(e: { tool: string; summary: string; input?: string; paths?: string[] }) {
    const summary = clipUtf8(oneLine(this.text(e.summary)), TOOL_LIMITS.summary) || clipUtf8(e.tool, 500);
    const input = e.input === undefined ? undefined : clipUtf8(this.text(e.input), TOOL_LIMITS.input);
    const paths = e.paths?.slice(0, TOOL_LIMITS.paths).map((p) => clipUtf8(this.text(p), TOOL_LIMITS.path));
    return {
      tool: clipUtf8(e.tool, TOOL_LIMITS.tool) || "tool",
      summary,
      ...(input ? { input } : {}),
      ...(paths?.length ? { paths: paths.filter(Boolean) } : {}),
    };
  }

  started(e: Started): void {
    if (!e.id) return; // a call without the agent's id cannot be told apart from the next
    const id = this.callId(e);
    if (this.open.size >= KEPT_OPEN) this.open.delete(this.open.keys().next().value!);
    this.open.set(e.id, { id, at: e.at ?? Date.now() });
    void this.sink.post({ type: "tool.started", call_id: id, ...this.what(e), actor: this.actor });
  }

  finished(e: Finished): void {
    if (!e.id) return;
    const began = this.open.get(e.id);
    this.open.delete(e.id);
    // A call seen only at its end says what it was; one with no start and no name is not a call we can tell of.
    if (!began && (!e.tool || e.summary === undefined)) return;
    const at = e.at ?? Date.now();
    const duration = e.durationMs ?? (began ? at - began.at : undefined);
    const output = e.output === undefined ? undefined : this.text(e.output);
    const bytes = output === undefined ? undefined : Buffer.byteLength(output, "utf8");
    const error = e.error ? clipUtf8Tail(this.text(e.error), TOOL_LIMITS.error) : undefined;
    const files = e.files?.slice(0, TOOL_LIMITS.files).map((p) => clipUtf8(this.text(p), TOOL_LIMITS.path));
    const event = {
      type: "tool.finished" as const,
      call_id: began ? began.id : this.callId(e),
      outcome: e.outcome,
      ...(typeof e.exitCode === "number" && Number.isInteger(e.exitCode) ? { exit_code: e.exitCode } : {}),
      ...(duration !== undefined && duration >= 0
        ? { duration_ms: Math.min(Math.round(duration), LIMITS.estimateSeconds * 1000) }
        : {}),
      ...(output !== undefined ? { output_bytes: bytes, output: clipUtf8Tail(output, TOOL_LIMITS.output) } : {}),
      ...(files?.length ? { files: files.filter(Boolean) } : {}),
      ...(error ? { error } : {}),
      ...(!began ? this.what({ tool: e.tool!, summary: e.summary!, input: e.input, paths: e.paths }) : {}),
      actor: this.actor,
    };
    if (output !== undefined && bytes! > TOOL_LIMITS.output && this.sink.postWithOutput)
      void this.sink.postWithOutput(Buffer.from(output, "utf8"), event);
    else void this.sink.post(event);
  }
}
