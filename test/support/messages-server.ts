/**
 * A scripted Anthropic Messages API for the real Claude Code CLI: `claude` runs for real
 * (its process, its tools, its stream-json, file edits, the runner's sandbox); only the
 * model's choices come from a script.
 *
 * What the CLI sends, measured with Claude Code 2.1.141 against this server:
 *
 * - `HEAD /` (a reachability probe), then `POST /v1/messages?beta=true` with `stream: true`,
 *   `x-api-key: $ANTHROPIC_API_KEY`, and the WHOLE conversation in `messages` each time.
 * - The first user message holds `<system-reminder>` text blocks (skills; the context with
 *   `# claudeMd` — `$CLAUDE_CONFIG_DIR/CLAUDE.md` is read as the user's own guidance) and
 *   then the `-p` prompt as a plain text block. A tool's result returns as a user message
 *   with a `tool_result` block (`tool_use_id`, `content`, `is_error?`).
 * - `--resume <session_id>` with a new `-p` text resends the earlier history and adds the
 *   new text as the last user message: `lastUserText(messages)` is the guidance. After a
 *   SIGINT mid-tool, the interrupted turn is left out of the resumed history: it holds the
 *   first prompt, then a made-up `Continue from where you left off.` / `No response
 *   requested.` pair, then the guidance (the tool call and its partial output are gone).
 * - `tools` includes `Bash` `{command}`, `Edit` `{file_path, old_string, new_string,
 *   replace_all?}` (refused unless the file was `Read` first in the session), `Write`
 *   `{file_path, content}`, `Read` `{file_path}` and `TodoWrite` `{todos: [{content,
 *   status: pending|in_progress|completed, activeForm}]}` (all three required; versions
 *   from 2.1.142 on replace TodoWrite with Task* tools, which is why 2.1.141 is pinned).
 * - Answer: SSE `message_start`, per block `content_block_start` / `content_block_delta`
 *   (`text_delta` or `input_json_delta`) / `content_block_stop`, `message_delta` with
 *   `stop_reason` (`tool_use` or `end_turn`) and usage, `message_stop`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { ClaudeConfig } from "../../lib/agents/runner/adapters/claude";

export type Block =
  { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** One model answer: its content blocks, or an API error. `hold`: don't answer until it resolves. */
export interface MessagesTurn {
  blocks: Block[];
  error?: { status: number; type: string; message: string };
  hold?: Promise<void>;
}

/** Picks the answer to a request; `index` counts the POSTs to `/v1/messages` from 0. */
export type MessagesScript = (req: {
  messages: any[];
  body: any;
  index: number;
}) => MessagesTurn | Promise<MessagesTurn>;

/** The ClaudeConfig that points the real `claude` at a scripted Messages API (docs/RUNNERS.md). */
export function mockAnthropic(m: MessagesServer): ClaudeConfig {
  return { baseUrl: m.url, env: { ANTHROPIC_API_KEY: "sk-ant-mock" } };
}

export interface MessagesServer {
  /** `ANTHROPIC_BASE_URL`: `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Every `/v1/messages` request body, in order. */
  requests: any[];
  /** Every request line seen (`HEAD /`, `POST /v1/messages?beta=true`…). */
  seen: string[];
  close(): Promise<void>;
}

let seq = 0;
const next = () => ++seq;

function sse(res: http.ServerResponse, type: string, data: Record<string, unknown>): void {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

function answer(res: http.ServerResponse, model: string, blocks: Block[]) {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "request-id": `req_${next()}`,
  });
  sse(res, "message_start", {
    message: {
      id: `msg_${next()}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      sse(res, "content_block_start", { index, content_block: { type: "text", text: "" } });
      sse(res, "content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
    } else {
      sse(res, "content_block_start", {
        index,
        content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
      });
      sse(res, "content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) },
      });
    }
    sse(res, "content_block_stop", { index });
  });
  const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  sse(res, "message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  sse(res, "message_stop", {});
  res.end();
}

/**
 * Starts the server on 127.0.0.1 (port 0). A script that throws answers 500 (an
 * `api_error`), which the CLI retries and then reports — so a test sees its mistakes.
 */
export async function startMessagesServer(script: MessagesScript): Promise<MessagesServer> {
  const requests: any[] = [];
  const seen: string[] = [];
  let index = 0;
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.method === "HEAD" || req.method === "GET") {
      res.writeHead(200).end();
      return;
    }
    if (req.method !== "POST" || req.url?.replace(/\?.*$/, "") !== "/v1/messages") {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not found" } }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        requests.push(body);
        const turn = await script({
          messages: Array.isArray(body.messages) ? body.messages : [],
          body,
          index: index++,
        });
        if (turn.hold) await turn.hold;
        if (res.destroyed) return; // the CLI was stopped mid-request
        if (turn.error) {
          res.writeHead(turn.error.status, { "content-type": "application/json" });
          res.end(JSON.stringify({ type: "error", error: { type: turn.error.type, message: turn.error.message } }));
          return;
        }
        answer(res, String(body.model ?? "mock-model"), turn.blocks);
      } catch (e) {
        if (!res.headersSent && !res.destroyed) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: String(e) } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const tool = (name: string, input: Record<string, unknown>): Block => ({
  type: "tool_use",
  id: `toolu_${String(next()).padStart(6, "0")}`,
  name,
  input,
});

/** A shell command (the `Bash` tool). */
export const bash = (command: string) => tool("Bash", { command });
/** The agent's plan (`TodoWrite`): `[content, status]` pairs. */
export const todo = (items: Array<[string, "pending" | "in_progress" | "completed"]>) =>
  tool("TodoWrite", {
    todos: items.map(([content, status]) => ({ content, status, activeForm: `Working on ${content}` })),
  });
/** Read a file (Edit refuses a file the session has not read). */
export const read = (file_path: string) => tool("Read", { file_path });
export const edit = (file_path: string, old_string: string, new_string: string) =>
  tool("Edit", { file_path, old_string, new_string });
export const write = (file_path: string, content: string) => tool("Write", { file_path, content });
/** Assistant text (a final answer when it is the only block). */
export const say = (text: string): Block => ({ type: "text", text });

const textsOf = (m: any): string[] =>
  typeof m?.content === "string"
    ? [m.content]
    : Array.isArray(m?.content)
      ? m.content.filter((c: any) => c?.type === "text").map((c: any) => String(c.text))
      : [];
const isReminder = (t: string) => /^\s*<system-reminder>/.test(t);

/** The newest text a person (or the runner's prompt, resume or steer) wrote; `<system-reminder>` blocks are skipped. */
export function lastUserText(messages: any[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role !== "user") continue;
    const own = textsOf(messages[i]).filter((t) => !isReminder(t));
    if (own.length) return own[own.length - 1];
  }
  return undefined;
}

/** The `tool_result` blocks since the newest user text: how far the agent got in this turn. */
export function toolResultsSinceUser(messages: any[]): any[] {
  const out: any[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "user") continue;
    const blocks = Array.isArray(m.content) ? m.content : [];
    out.unshift(...blocks.filter((c: any) => c?.type === "tool_result"));
    if (textsOf(m).some((t) => !isReminder(t))) break;
  }
  return out;
}

/** The worktree the CLI runs in, as its system prompt says (`Primary working directory: …`). */
export function workdirOf(body: any): string {
  const system = Array.isArray(body?.system)
    ? body.system.map((s: any) => String(s?.text ?? "")).join("\n")
    : String(body?.system ?? "");
  const m = /Primary working directory: (\S+)/.exec(system);
  if (!m) throw new Error("no working directory in the system prompt");
  return m[1];
}

/** A tool result's text, whatever shape its content has. */
export function resultText(r: any): string {
  if (typeof r?.content === "string") return r.content;
  return Array.isArray(r?.content)
    ? r.content.map((c: any) => (typeof c?.text === "string" ? c.text : "")).join("")
    : "";
}
