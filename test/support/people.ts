import type { Socket } from "socket.io-client";
import type { PeopleFrame } from "../../lib/core/protocol";

/**
 * What one socket is told about a room's people ([RT5]): the list as it holds it (the whole
 * list when it joined, then each change applied), the frames, and how many people they named.
 */
export function watchPeople(s: Socket, spaceId: string) {
  const w = {
    view: new Map<string, string>(),
    frames: 0,
    named: 0,
    /** The people's ids, sorted. */
    ids: () => [...w.view.keys()].sort(),
  };
  s.on("people", (m: PeopleFrame) => {
    if (m.space_id !== spaceId) return;
    w.frames++;
    if ("people" in m) {
      w.view = new Map(m.people.map((p) => [p.id, p.name]));
      w.named += m.people.length;
      return;
    }
    for (const id of m.left) w.view.delete(id);
    for (const p of m.joined) w.view.set(p.id, p.name);
    w.named += m.joined.length + m.left.length;
  });
  return w;
}
