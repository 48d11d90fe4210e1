/** One load window of the scale bench, on clients already connected, and stopping those clients. */
import fs from "node:fs";
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
}

export const stopClients = (children: { send(m: object): boolean; kill(): boolean }[]) => {
  for (const ch of children) {
    ch.send({ op: "stop" });
    ch.kill();
  }
};

/** One load window against a server whose clients are connected: delivery figures and CPU. */
export async function window(
  o: WindowLoad,
  url: string,
  cpuMs: () => number,
  tenants: Tenant[],
  sockets: Assignment[],
  total: number,
  children: Children,
  memFile: string,
) {
  const { busyN, busyRate, seconds, quietWait } = o;
  const { busy, quiet } = classes(tenants, busyN, total, busyRate);
  // The memory hook pauses first: its full GCs (~0.1 s of CPU each, every 0.5 s over this many
  // sockets) would count as the machine's own load in the wait for quiet, and run into the window.
  fs.writeFileSync(memFile + ".pause", "");
  const machineBusy = quietWait ? await waitQuiet(quietWait) : NaN;
  const meter = machineMeter();
  const cpu0 = cpuMs();
  const load = await postLoad(url, { busy, quiet, busyRate, total, seconds });
  const reports = await collect(children, expectedDeliveries(sockets, load.perRoom));
  const serverCpu = cpuMs() - cpu0;
  // The machine is shared: how busy it was (ours and everyone's) says how far to trust the window.
  const m = meter.stop();
  fs.rmSync(memFile + ".pause");
  const machineNow = `${m.busy.toFixed(0)} % / ${m.load1.toFixed(1)}`;
  log(`window at ${total}/s: machine ${machineNow} (% of a core busy, 200 = both; load average)`);
  if (quietWait) log(`  ${machineBusy.toFixed(0)} % busy before it`);
  return { load, d: deliveries(reports, load.perRoom), cpuPerEvent: serverCpu / Math.max(1, load.ok), machineNow };
}
