import { execFileSync } from "node:child_process";

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
    const cmd = `env ${Object.entries(env)
      .map(([k, v]) => q(`${k}=${v}`))
      .join(" ")} ${argv.map(q).join(" ")}`;
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
    // Polled, not awaited from vitest: Playwright specs use this too.
    const deadline = Date.now() + ms;
    for (;;) {
      const last = this.screen();
      if (ok(last)) return last;
      if (Date.now() > deadline) throw new Error(`still waiting for: ${what} on screen\n--- screen ---\n${last}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Hang up (the program gets SIGHUP, as when a terminal closes) and wait until it has exited. */
  async close(): Promise<void> {
    let pid = 0;
    try {
      pid = Number(this.tmux("display-message", "-p", "-t", this.target, "#{pane_pid}").trim());
      this.tmux("kill-server");
    } catch {
      return; // already gone
    }
    const deadline = Date.now() + 15_000;
    while (pid && Date.now() < deadline) {
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
