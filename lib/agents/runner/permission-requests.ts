import type { Writable } from "node:stream";
import type { ToolCall } from "./adapter";
import type { JobSetup } from "./job-setup";

/**
 * [RN6] The permission requests a job's CLI asked on stdout (`can_use_tool`): each decided
 * (maybe by a person), answered on the CLI's stdin while that CLI is still the one that
 * asked, then reported. The CLI may take one back; every one left is withdrawn when the
 * agent stops ([RN8]).
 */
export class PermissionRequests {
  /** Questions waiting for their answer, by request id: aborted when the CLI takes one back. */
  private waiting = new Map<string, AbortController>();

  constructor(private s: Pick<JobSetup, "asks" | "adapter" | "out">) {}

  /** `stdin` answers the CLI's input when it is still the process that asked, else nothing. */
  async answer(requestId: string, call: ToolCall, stdin: () => Writable | null | undefined) {
    const ctl = new AbortController();
    this.waiting.set(requestId, ctl);
    const adapter = this.s.adapter;
    try {
      const d = this.s.asks
        ? await this.s.asks.decide(call, ctl.signal)
        : {
            verdict: { behavior: "deny" as const, message: "This run's profile asks nobody." },
            report: async () => {},
          };
      const input = stdin();
      const delivered = !ctl.signal.aborted && !!input?.writable && !!adapter.permissionAnswer;
      if (delivered) input!.write(adapter.permissionAnswer!(requestId, d.verdict) + "\n");
      await d.report(delivered);
    } catch (e) {
      void this.s.out.runnerEvent("log", `a permission request failed: ${(e as Error).message}`);
    } finally {
      this.waiting.delete(requestId);
    }
  }

  /** The CLI took a question back. */
  withdraw(requestId: string) {
    this.waiting.get(requestId)?.abort();
  }

  /** [RN8] Every ask still waiting is closed (`cancelled`): the agent it was for is gone or going. */
  withdrawAll() {
    for (const r of this.waiting.values()) r.abort();
    this.s.asks?.withdrawAll();
  }
}
