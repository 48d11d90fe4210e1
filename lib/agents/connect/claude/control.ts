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

  /** Forget every command file not of `keepTurn` (a turn ended or a new one began). */
  clear(keepTurn: string | null = null): void {
    for (const name of this.names())
      if (name.split(".")[1] !== keepTurn) fs.rmSync(path.join(this.dir, name), { force: true });
    this.sync();
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
