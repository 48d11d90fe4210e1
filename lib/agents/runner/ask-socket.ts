import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** The hook script a Codex job's `config.toml` names ([RN9]). */
export const ASK_HOOK = path.join(import.meta.dirname, "ask-hook.mjs");

/**
 * Where a job's hook reaches it: `<job dir>/ask.sock`, or — a unix socket path has at most
 * 107 bytes — a name in the system's temp dir made from the job dir, for a deep one.
 */
export function askSocketPath(jobDir: string): string {
  const own = path.join(jobDir, "ask.sock");
  if (Buffer.byteLength(own) <= 100) return own;
  const id = crypto.createHash("sha256").update(jobDir).digest("hex").slice(0, 16);
  return path.join(os.tmpdir(), `chips-ask-${id}.sock`);
}

/** What the job tells one hook: the line it prints, and what to do once that line left (or could not). */
export interface HookReply {
  line: string;
  /** Called once the line was handed to the hook's connection (`delivered`), or the hook was gone. */
  after?: (delivered: boolean) => Promise<void>;
}

/** A PreToolUse deny: the model reads `reason`. */
export const denyLine = (reason: string) =>
  JSON.stringify({
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason },
  });

/**
 * The job's end of the hook ([RN9]): a unix socket (mode 0600) where each connection brings one
 * line — the hook's JSON input — and gets one line back: what the hook prints. `answer` decides;
 * if it throws, the call is denied with the reason.
 */
export async function serveAsks(
  file: string,
  answer: (input: Record<string, unknown>) => Promise<HookReply>,
): Promise<{ close(): void }> {
  fs.rmSync(file, { force: true });
  const server = net.createServer((conn) => {
    let buf = "";
    conn.setEncoding("utf8");
    conn.on("error", () => conn.destroy());
    conn.on("data", (d) => {
      buf += d;
      const nl = buf.indexOf("\n");
      if (nl < 0) return;
      conn.removeAllListeners("data");
      void (async () => {
        let reply: HookReply;
        try {
          reply = await answer(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
        } catch (e) {
          reply = { line: denyLine(`The Chips runner could not decide (${(e as Error).message}): not run.`) };
        }
        const after = reply.after ?? (async () => {});
        if (conn.destroyed) return void after(false);
        conn.end(reply.line + "\n", () => void after(true));
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(file, () => resolve());
  });
  fs.chmodSync(file, 0o600);
  return {
    close() {
      server.close();
      fs.rmSync(file, { force: true });
    },
  };
}
