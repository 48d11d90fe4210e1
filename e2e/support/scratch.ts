import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * What one test makes outside the server — a temp dir, scripted models, runners, child
 * processes — undone after it (the `scratch` fixture), newest first, every one of them even
 * when one fails; the first failure is then the test's.
 */
export class Scratch {
  private dir = "";
  private readonly undo: Array<() => unknown> = [];

  constructor(private readonly prefix = "chips-e2e-") {}

  /** The test's temp dir (made on first use), or a path under it. */
  path(...parts: string[]): string {
    if (!this.dir) this.dir = fs.mkdtempSync(path.join(os.tmpdir(), this.prefix));
    return path.join(this.dir, ...parts);
  }

  /** A fresh directory under the temp dir. */
  mkdir(...parts: string[]): string {
    const dir = this.path(...parts);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** Close `thing` after the test; answers it. */
  closes<T extends { close(): unknown }>(thing: T): T {
    this.undo.push(() => thing.close());
    return thing;
  }

  /** Run `fn` after the test. */
  defer(fn: () => unknown): void {
    this.undo.push(fn);
  }

  async close(): Promise<void> {
    const failures: unknown[] = [];
    for (const fn of this.undo.splice(0).reverse()) {
      try {
        await fn();
      } catch (e) {
        failures.push(e);
      }
    }
    // A CLI may still be writing its last file (a hook, a session log) as it goes.
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    this.dir = "";
    if (failures.length) throw failures[0];
  }
}
