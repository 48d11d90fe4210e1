/** The scale bench's rooms by class, and its connect phase with the memory hook paused. */
import fs from "node:fs";
import type { Tenant } from "./run";

/**
 * Rooms by class: the first room of every (W / busy)-th workspace is busy. At most as many
 * busy rooms as take 80 % of `total` at `busyRate` each: the quiet rooms always get the rest.
 */
export function classes(tenants: Tenant[], wanted: number, total: number, busyRate: number) {
  const busy = Math.max(1, Math.min(wanted, Math.floor((0.8 * total) / busyRate)));
  const all = tenants.flatMap((t) => t.rooms.map((room) => ({ ws: t.ws, room })));
  const stride = Math.max(1, Math.floor(tenants.length / busy));
  const busyRooms = new Set(
    tenants
      .filter((_, i) => i % stride === 0)
      .slice(0, busy)
      .map((t) => t.rooms[0]),
  );
  return { busy: all.filter((x) => busyRooms.has(x.room)), quiet: all.filter((x) => !busyRooms.has(x.room)) };
}

/**
 * Sockets connect with the memory hook paused: its full GC every 500 ms over a heap of
 * thousands of sockets would otherwise take a large share of the server's CPU, and the join
 * times would measure the hook.
 */
export async function connecting<T>(memFile: string, go: () => Promise<T>): Promise<T> {
  fs.writeFileSync(memFile + ".pause", "");
  try {
    return await go();
  } finally {
    fs.rmSync(memFile + ".pause", { force: true });
  }
}
