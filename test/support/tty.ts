import { execFileSync } from "node:child_process";
import { until } from "./feed";

let n = 0;
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A program in a real pseudo-terminal, as a person runs it: tmux (its own server socket
 * per instance) starts it in a 120×40 window; `type` and `press` send keys, `screen()`
 * reads what the window shows now.
 */
export class Tty {
  private readonly socket = `chips-test-${process.pid}-${++n}`;
  private readonly target = "t";

  constructor(cwd: string, argv: string[], env: Record<string, string>) {
    const cmd = `env ${Object.entries(env).map(([k, v]) => q(`${k}=${v}`)).join(" ")} ${argv.map(q).join(" ")}`;
    this.tmux("new-session", "-d", "-s", this.target, "-x", "120", "-y", "40", "-c", cwd, cmd);
    this.tmux("set-option", "-t", this.target, "remain-on-exit", "on");
  }

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  screen(): string {
    return this.tmux("capture-pane", "-p", "-t", this.target);
  }

  /** Type text literally (no key names). */
  type(text: string): void {
    this.tmux("send-keys", "-t", this.target, "-l", text);
  }

  /** Press keys by name (`Enter`, `Up`, `Escape`, `C-c`). */
  press(...keys: string[]): void {
    this.tmux("send-keys", "-t", this.target, ...keys);
  }

  waitFor(re: RegExp, what: string, ms = 60_000): Promise<string> {
    return this.waitScreen((s) => re.test(s), what, ms);
  }

  async waitScreen(ok: (screen: string) => boolean, what: string, ms = 60_000): Promise<string> {
    let last = "";
    await until(() => ok((last = this.screen())), `${what} on screen`, ms).catch((e) => {
      throw new Error(`${(e as Error).message}\n--- screen ---\n${last}`);
    });
    return last;
  }

  close(): void {
    try {
      this.tmux("kill-server");
    } catch {
      // already gone
    }
  }
}
