import crypto from "node:crypto";
import net from "node:net";
import path from "node:path";

/**
 * One process per connection directory: a listening Unix socket is the lock. On Linux it
 * lives in the abstract namespace (no file, gone with the process, so a crash leaves no
 * stale lock to race over); elsewhere it is `<dir>/drainer.sock`. Answers a release
 * function, or null when another process holds it.
 */
export async function takeLock(dir: string): Promise<(() => void) | null> {
  const abstract = process.platform === "linux";
  const where = abstract
    ? `\0chips-${crypto.createHash("sha256").update(path.resolve(dir)).digest("hex").slice(0, 24)}`
    : path.join(dir, "drainer.sock");
  const server = net.createServer((s) => s.destroy());
  const listen = () =>
    new Promise<boolean>((resolve, reject) => {
      server.once("error", (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" ? resolve(false) : reject(e)));
      server.listen(where, () => resolve(true));
    });
  if (await listen()) {
    server.unref();
    return () => server.close();
  }
  if (abstract) return null;
  // A socket file: is anyone behind it?
  const alive = await new Promise<boolean>((resolve) => {
    const c = net.connect(where, () => {
      c.destroy();
      resolve(true);
    });
    c.on("error", () => resolve(false));
  });
  if (alive) return null;
  (await import("node:fs")).rmSync(where, { force: true });
  return (await listen()) ? () => server.close() : null;
}
