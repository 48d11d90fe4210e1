/** One load window of the scale bench, on clients already connected, and stopping those clients. */
import fs from "node:fs";
import { monoMs } from "../lib/hist";
import { loopSummary } from "../lib/loop";
import { machineMeter, waitQuiet } from "../lib/proc";
import type { Assignment } from "./clients";
import { collect, connectClients, deliveries, expectedDeliveries, log, postLoad, type Tenant } from "./run";
import { classes } from "./shape";

type Children = Awaited<ReturnType<typeof connectClients>>["children"];

/** How the bench loads a window: its busy rooms and their rate, how long, how quiet a machine to wait for. */
export interface WindowLoad {
  busyN: number;
  busyRate: number;
  seconds: number;
  /** Seconds to wait for the machine to be < 30 % busy first (0: no wait). */
  quietWait: number;
  /**
   * Seconds of the same load, not measured, right before the window: the server's code paths
   * compiled and what it keeps per workspace (writers' heads, credentials) read again after
   * the quiet wait, so the window measures the steady state and not a cold start.
   */
  warmup: number;
}

/** A scale bench server as a window uses it (bench/scale/servers.ts). */
export interface WindowServer {
  srv: { url: string; cpuMs(): number };
  memFile: string;
  loopFile: string;
}

export const stopClients = (children: { send(m: object): boolean; kill(): boolean }[]) => {
  for (const ch of children) {
    ch.send({ op: "stop" });
    ch.kill();
  }
};

/** One load window against a server whose clients are connected: delivery figures, CPU and the server's loop. */
export async function window(
  o: WindowLoad,
  s: WindowServer,
  tenants: Tenant[],
  sockets: Assignment[],
  total: number,
  children: Children,
) {
  const { busyN, busyRate, seconds, quietWait, warmup } = o;
  const { busy, quiet } = classes(tenants, busyN, total, busyRate);
  // The memory hook pauses first: its full GCs (~0.1 s of CPU each, every 0.5 s over this many
  // sockets) would count as the machine's own load in the wait for quiet, and run into the window.
  fs.writeFileSync(s.memFile + ".pause", "");
  const machineBusy = quietWait ? await waitQuiet(quietWait) : NaN;
  if (warmup > 0) {
    const w = await postLoad(s.srv.url, { busy, quiet, busyRate, total, seconds: warmup });
    await collect(children, expectedDeliveries(sockets, w.perRoom)); // its figures are dropped
  }
  const meter = machineMeter();
  const cpu0 = s.srv.cpuMs();
  const t0 = monoMs();
  const load = await postLoad(s.srv.url, { busy, quiet, busyRate, total, seconds });
  const reports = await collect(children, expectedDeliveries(sockets, load.perRoom));
  const t1 = monoMs();
  const serverCpu = s.srv.cpuMs() - cpu0;
  // The machine is shared: how busy it was (ours and everyone's) says how far to trust the window.
  const m = meter.stop();
  fs.rmSync(s.memFile + ".pause");
  const loop = await loopSummary(s.loopFile, t0, t1);
  const machineNow = `${m.busy.toFixed(0)} % / ${m.load1.toFixed(1)}`;
  log(`window at ${total}/s: machine ${machineNow} (% of a core busy, 200 = both; load average)`);
  if (quietWait) log(`  ${machineBusy.toFixed(0)} % busy before it`);
  return {
    load,
    d: deliveries(reports, load.perRoom),
    cpuPerEvent: serverCpu / Math.max(1, load.ok),
    machineNow,
    loop,
  };
}
