/**
 * Loaded into a server child with `--import` (bench only): SIGUSR2 starts a CPU profile
 * (inspector), the next SIGUSR2 stops it and writes `<CHIPS_BENCH_PROF_DIR>/<pid>-<n>.cpuprofile`,
 * so a profile covers exactly a bench's measured window. Writes `<pid>.ready` when armed.
 * With CHIPS_BENCH_PROF_KIND=heap it samples allocations instead, the collected ones kept
 * (`.heapprofile`): what a request allocates, i.e. what the garbage collector is fed.
 */
import fs from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";

const dir = process.env.CHIPS_BENCH_PROF_DIR;
const heap = process.env.CHIPS_BENCH_PROF_KIND === "heap";
if (dir) {
  const session = new Session();
  session.connect();
  let on = false;
  let n = 0;
  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) =>
      session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))),
    );
  process.on("SIGUSR2", () => {
    if (!on) {
      on = true;
      const start = heap
        ? post("HeapProfiler.enable").then(() =>
            post("HeapProfiler.startSampling", {
              samplingInterval: 4096,
              includeObjectsCollectedByMajorGC: true,
              includeObjectsCollectedByMinorGC: true,
            }),
          )
        : post("Profiler.enable")
            .then(() => post("Profiler.setSamplingInterval", { interval: 500 }))
            .then(() => post("Profiler.start"));
      void start.then(() => fs.writeFileSync(path.join(dir, `${process.pid}.started`), ""));
    } else {
      on = false;
      void post(heap ? "HeapProfiler.stopSampling" : "Profiler.stop").then((r: { profile: unknown }) => {
        const file = path.join(dir, `${process.pid}-${++n}.${heap ? "heapprofile" : "cpuprofile"}`);
        fs.writeFileSync(file + ".tmp", JSON.stringify(r.profile));
        fs.renameSync(file + ".tmp", file);
        fs.rmSync(path.join(dir, `${process.pid}.started`), { force: true });
      });
    }
  });
  fs.writeFileSync(path.join(dir, `${process.pid}.ready`), "");
}
