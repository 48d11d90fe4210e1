import fs from "node:fs";
import path from "node:path";
import { privateDir, writeAtomic } from "../home";

/**
 * The files through which the drainer tells the gate (gate.mjs) what the room asked of a
 * session: `sessions/<sid>/<kind>.<turn>.<command_id>` (a steer's holds `{"text": …}`),
 * and `gate`, present while any of them is — the hook's cue to run the gate at all. A file
 * names the turn it is for (the queue id of the turn's UserPromptSubmit, which the hook
 * writes to `sessions/<sid>/turn`), so nothing meant for a turn reaches the next one.
 */
export class ControlFiles {
  readonly dir: string;

  constructor(root: string, sid: string) {
    this.dir = path.join(root, "sessions", sid);
  }

  write(
    kind: "pause" | "resume" | "steer" | "cancel",
    turn: string,
    commandId: string,
    body: Record<string, unknown> = {},
  ): void {
    privateDir(this.dir);
    writeAtomic(path.join(this.dir, `${kind}.${turn}.${commandId}`), JSON.stringify(body));
    this.sync();
  }

  /** Remove one kind of command file of a turn (all of them, or one command's). */
  remove(kind: string, turn: string, commandId?: string): void {
    for (const name of this.names()) {
      const [k, t, c] = name.split(".");
      if (k === kind && t === turn && (commandId === undefined || c === commandId))
        fs.rmSync(path.join(this.dir, name), { force: true });
    }
    this.sync();
  }

  /** Forget every command file (and "allow for this run" grant) not of `keepTurn` (a turn ended or a new one began). */
  clear(keepTurn: string | null = null): void {
    for (const name of this.names())
      if (name.split(".")[1] !== keepTurn) fs.rmSync(path.join(this.dir, name), { force: true });
    for (const name of this.list().filter((n) => n.startsWith("grants.") && n !== `grants.${keepTurn}`))
      fs.rmSync(path.join(this.dir, name), { force: true });
    this.sync();
  }

  /**
   * [CON3] What the hook waiting on ask `key` (ask.mjs) reads: `{output}` — what to print to
   * Claude Code — or `{closed}`: step aside.
   */
  askAnswer(key: string, body: { output: object } | { closed: string }): void {
    privateDir(this.dir);
    writeAtomic(path.join(this.dir, `ask.${key}.answer`), JSON.stringify(body));
  }

  /** The ask reached Chips: the hook waits for the room from now on (else it steps aside soon). */
  askSent(key: string): void {
    privateDir(this.dir);
    writeAtomic(path.join(this.dir, `ask.${key}.sent`), "");
  }

  /** The ask's files, once its hook is done with them. */
  forgetAsk(key: string): void {
    for (const f of [`ask.${key}.answer`, `ask.${key}.sent`]) fs.rmSync(path.join(this.dir, f), { force: true });
  }

  /** The tools allowed for the rest of a turn ("Allow for this run"): the hook allows them without asking. */
  grants(turn: string, tools: string[]): void {
    privateDir(this.dir);
    writeAtomic(path.join(this.dir, `grants.${turn}`), JSON.stringify(tools));
  }

  private list(): string[] {
    try {
      return fs.readdirSync(this.dir);
    } catch {
      return [];
    }
  }

  private names(): string[] {
    try {
      return fs.readdirSync(this.dir).filter((n) => /^(pause|resume|steer|cancel|cancelled)\./.test(n));
    } catch {
      return [];
    }
  }

  /** `gate` exists exactly while a command file does. */
  private sync(): void {
    const gate = path.join(this.dir, "gate");
    if (this.names().length) {
      privateDir(this.dir);
      if (!fs.existsSync(gate)) fs.writeFileSync(gate, "", { mode: 0o600 });
    } else {
      fs.rmSync(gate, { force: true });
    }
  }
}
