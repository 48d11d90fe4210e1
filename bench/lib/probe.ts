/**
 * Preloaded into the server child (`node --import tsx --import bench/lib/probe.ts server.ts`):
 * measures the server's own CPU and event-loop delay over the window the bench names, and
 * optionally CPU-profiles exactly that window (not startup or migrations). Talks over the
 * IPC channel only; the server code is untouched.
 */
import fs from "node:fs";
import { Session } from "node:inspector";
import { monitorEventLoopDelay } from "node:perf_hooks";

export interface ProbeReport {
  cpuPct: number;
  /** The kernel's share of it (socket writes and reads on loopback are charged here). */
  sysPct: number;
  loopP50: number;
  loopP99: number;
  loopMax: number;
  rssMb: number;
  profileFile?: string;
}

type Msg = { op: "start"; profileFile?: string } | { op: "stop" };

if (process.send) {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  let cpu0 = process.cpuUsage();
  let t0 = performance.now();
  let session: Session | null = null;
  let profileFile: string | undefined;

  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) =>
      session!.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))),
    );

  process.on("message", async (m: Msg) => {
    if (m.op === "start") {
      loop.reset();
      loop.enable();
      cpu0 = process.cpuUsage();
      t0 = performance.now();
      profileFile = m.profileFile;
      if (profileFile) {
        session = new Session();
        session.connect();
        await post("Profiler.enable");
        await post("Profiler.setSamplingInterval", { interval: 250 });
        await post("Profiler.start");
      }
      process.send!({ op: "started" });
    } else if (m.op === "stop") {
      const c = process.cpuUsage(cpu0);
      const wall = performance.now() - t0;
      loop.disable();
      let written: string | undefined;
      if (session && profileFile) {
        const { profile } = await post("Profiler.stop");
        fs.writeFileSync(profileFile, JSON.stringify(profile));
        session.disconnect();
        session = null;
        written = profileFile;
      }
      const report: ProbeReport = {
        cpuPct: ((c.user + c.system) / 1000 / wall) * 100,
        sysPct: (c.system / 1000 / wall) * 100,
        loopP50: loop.percentile(50) / 1e6,
        loopP99: loop.percentile(99) / 1e6,
        loopMax: loop.max / 1e6,
        rssMb: process.memoryUsage().rss / 2 ** 20,
        profileFile: written,
      };
      process.send!({ op: "report", report });
    }
  });
  // The channel must not keep the server alive after SIGTERM.
  process.channel?.unref();
}
