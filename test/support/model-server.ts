/**
 * A scripted OpenAI Responses API for the real Codex CLI: Codex runs for real (its process,
 * sandbox, JSONL, file edits); only the model's choices come from a script.
 *
 * Codex POSTs `<base_url>/responses` with `stream: true` and the whole history in `input`
 * each time. Each answer is SSE: one `response.output_item.done` per item, then
 * `response.completed` (without it Codex retries, then fails the turn).
 *
 * What the model sees, measured with Codex CLI 0.169.0 against this server
 * (test/model-server.unit.test.ts asserts the stable parts):
 *
 * - A first `exec "PROMPT"` sends: 2 `developer` messages (base instructions, skills),
 *   a `user` message `<environment_context>…</environment_context>`, then the prompt as a
 *   `user` message `{type:"message", role:"user", content:[{type:"input_text", text}]}`.
 *   Tools offered: exec_command, write_stdin, update_plan (with the flag), request_user_input,
 *   view_image, …; `stream: true`, `store: false`, no `previous_response_id`.
 * - `exec --json <same flags> resume <thread_id> "guidance"` keeps the thread id
 *   (`thread.started` repeats it) and sends the WHOLE earlier history verbatim — developer
 *   messages, environment context, the first prompt, every function_call and
 *   function_call_output, the assistant's final messages of earlier turns — and then the
 *   guidance as ONE new plain `user` message, the very last input item (no new environment
 *   context when the cwd is unchanged). So `lastUserText(input)` is the guidance.
 * - Killed with SIGTERM (or SIGKILL) mid-command: the process dies by the signal (code null)
 *   and prints nothing more — no item.completed for the command, no turn.failed. The
 *   rollout keeps the function_call but no output; on resume Codex inserts a synthetic
 *   `{type:"function_call_output", call_id, output:"aborted"}` for it, right before the
 *   guidance. The command's partial output is lost.
 * - Stopped with SIGINT mid-command: Codex aborts the turn itself and exits 1 (also without
 *   printing more JSONL). The history then holds `output:"Wall time: 1.2 seconds\naborted by
 *   user"` for the call, a `user` message `<turn_aborted>The user interrupted the previous
 *   turn on purpose…</turn_aborted>`, then the guidance. (Once, stderr said "failed to record
 *   rollout items: thread … not found", yet the resumed history was the same.)
 * - What outlives the process group: Codex runs commands in new sessions (codex-linux-sandbox
 *   → bwrap --new-session). After SIGTERM/SIGINT Codex tears its sandboxes down itself; after
 *   SIGKILL the outer codex-linux-sandbox helper was still there right after the kill (gone
 *   ~3 s later). In every case, even a clean exit 0, processes a login shell (`bash -lc`)
 *   backgrounds survive in their own session — here pyenv's `pyenv-rehash` lock loop
 *   (`sleep 0.1` polls, up to 60 s), also from Codex's shell-snapshot `bash -lc` that sources
 *   ~/.bashrc. They carry CHIPS_JOB, so `killJobProcesses` finds them.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** One model answer: the items to emit. `hold`: don't answer until it resolves. */
export interface ModelTurn {
  items: Array<Record<string, unknown>>;
  hold?: Promise<void>;
}

/** Picks the answer to a request; `index` counts the POSTs to `/responses` from 0. */
export type Script = (req: { input: any[]; body: any; index: number }) => ModelTurn | Promise<ModelTurn>;

/** A running model server. */
export interface ModelServer {
  /** The provider `base_url`: `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** Every `/responses` request body, in order. */
  requests: any[];
  close(): Promise<void>;
}

let seq = 0;
const next = () => ++seq;

function sse(res: http.ServerResponse, type: string, data: Record<string, unknown>): void {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

function usage() {
  return {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
}

/**
 * Starts the server on 127.0.0.1 (port 0). A script that throws answers 500, which Codex
 * retries and then reports as a failed turn — so a test sees its mistakes.
 */
export async function startModelServer(script: Script): Promise<ModelServer> {
  const requests: any[] = [];
  let index = 0;
  const server = http.createServer((req, res) => {
    if (req.method !== "POST" || !req.url?.replace(/\?.*$/, "").endsWith("/responses")) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        requests.push(body);
        const turn = await script({ input: Array.isArray(body.input) ? body.input : [], body, index: index++ });
        if (turn.hold) await turn.hold;
        // The client may have gone (Codex killed mid-request): nothing to answer.
        if (res.destroyed) return;
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        const id = `resp_${next()}`;
        sse(res, "response.created", { response: { id } });
        turn.items.forEach((item, output_index) => sse(res, "response.output_item.done", { output_index, item }));
        sse(res, "response.completed", { response: { id, usage: usage() } });
        res.end();
      } catch (e) {
        if (!res.headersSent && !res.destroyed) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(e) } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function call(name: string, args: unknown): Record<string, unknown> {
  const n = next();
  return { type: "function_call", id: `fc_${n}`, call_id: `call_${n}`, name, arguments: JSON.stringify(args) };
}

/** A shell command (`exec_command`): a `command_execution` item in Codex's JSONL. */
export const shell = (cmd: string) => call("exec_command", { cmd });

/** A question to the user (`request_user_input`): `{questions: [{id, header, question, options: [{label, description}]}]}`. */
export const askUser = (
  questions: { id: string; header: string; question: string; options: { label: string; description: string }[] }[],
) => call("request_user_input", { questions });

/** The agent's plan (`update_plan`, needs `-c tools.update_plan.enabled=true`): a `todo_list` item. */
export const plan = (steps: Array<[string, "pending" | "in_progress" | "completed"]>) =>
  call("update_plan", { plan: steps.map(([step, status]) => ({ step, status })) });

/** A final answer: an `agent_message` item. */
export const say = (text: string) => {
  const n = next();
  return { type: "message", role: "assistant", id: `msg_${n}`, content: [{ type: "output_text", text }] };
};

/**
 * A file edit: `apply_patch` run as a shell command, which Codex turns into a `file_change`
 * item. `patchBody` is the patch in Codex's format (`*** Add File: a.txt\n+line`…); the
 * `*** Begin Patch` / `*** End Patch` lines are added when missing.
 */
export const patch = (patchBody: string) => {
  const body = patchBody.trimEnd();
  const full = body.startsWith("*** Begin Patch") ? body : `*** Begin Patch\n${body}\n*** End Patch`;
  return shell(`apply_patch <<'PATCH'\n${full}\nPATCH`);
};

function textOf(item: any): string {
  if (typeof item?.content === "string") return item.content;
  if (!Array.isArray(item?.content)) return "";
  return item.content.map((c: any) => (typeof c?.text === "string" ? c.text : "")).join("");
}

/**
 * The newest user message's text. Codex also sends context as user messages
 * (`<environment_context>…`, `# AGENTS.md instructions…`, `<user_instructions>`, and
 * `<turn_aborted>…` after an interrupt); those are skipped, so this is what the person (or
 * the runner's prompt, resume or steer) wrote.
 */
export function lastUserText(input: any[]): string | undefined {
  for (let i = input.length - 1; i >= 0; i--) {
    const it = input[i];
    if (it?.role !== "user" || (it.type !== undefined && it.type !== "message")) continue;
    const text = textOf(it);
    if (/^\s*(<environment_context>|<user_instructions>|<turn_aborted>|# AGENTS\.md instructions)/.test(text)) continue;
    return text;
  }
  return undefined;
}

/** How many tool results (`function_call_output`) the history holds. */
export function toolOutputs(input: any[]): number {
  return input.filter((it) => it?.type === "function_call_output").length;
}

/** Tool results since the newest user message: how far the agent got in the current turn. */
export function outputsSinceUser(input: any[]): number {
  let n = 0;
  for (let i = input.length - 1; i >= 0; i--) {
    const it = input[i];
    if (it?.role === "user" && (it.type === undefined || it.type === "message") && lastUserText([it]) !== undefined)
      return n;
    if (it?.type === "function_call_output") n++;
  }
  return n;
}
