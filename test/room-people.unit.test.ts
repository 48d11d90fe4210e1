import { describe, expect, it } from "vitest";
import { RoomPeople } from "../lib/server/realtime/people";

/**
 * Who is in a room ([RT1]'s room, the people list beside the timeline): the room's sockets are
 * told the list only when it changes — a person's second socket changes nothing — and a socket
 * that joins is always told; other nodes hear this node's list only when it changes.
 */
function world() {
  const room: string[][] = [];
  const one: [string, string[]][] = [];
  const published: string[] = [];
  const people = new RoomPeople({
    nodeId: "n1",
    emit: (_space, list) => room.push(list.map((p) => p.name)),
    emitTo: (socket, _space, list) => one.push([socket, list.map((p) => p.name)]),
    publish: async (payload) => void published.push(payload),
    refreshMs: 60_000,
    onError: (e) => {
      throw e;
    },
  });
  return { people, room, one, published };
}

const alice = { id: "prs_A", name: "Alice" };
const bob = { id: "prs_B", name: "Bob" };

describe("the people in a room", () => {
  it("a person's second socket tells the room nothing, but is itself told the list", () => {
    const w = world();
    w.people.joined("spc_1", "s1", alice);
    w.people.joined("spc_1", "s2", alice);
    w.people.joined("spc_1", "s3", bob);
    expect(w.room).toEqual([["Alice"], ["Alice", "Bob"]]);
    expect(w.one).toEqual([["s2", ["Alice"]]]);
    w.people.close();
  });

  it("leaving tells the room only when a person is gone from it", () => {
    const w = world();
    w.people.joined("spc_1", "s1", alice);
    w.people.joined("spc_1", "s2", alice);
    w.people.joined("spc_1", "s3", bob);
    w.room.length = 0;
    w.people.left("spc_1", "s2");
    expect(w.room).toEqual([]);
    w.people.left("spc_1", "s1");
    expect(w.room).toEqual([["Bob"]]);
    w.people.left("spc_1", "s3");
    expect(w.room).toEqual([["Bob"], []]);
    // The room is empty and forgotten: the next join tells it again.
    w.people.joined("spc_1", "s4", bob);
    expect(w.room).toEqual([["Bob"], [], ["Bob"]]);
    w.people.close();
  });

  it("other nodes hear this node's list when it changes, not on every socket", () => {
    const w = world();
    for (let i = 0; i < 50; i++) w.people.joined("spc_1", `a${i}`, alice);
    w.people.joined("spc_1", "b", bob);
    for (let i = 0; i < 50; i++) w.people.left("spc_1", `a${i}`);
    expect(w.published.map((p) => JSON.parse(p).p.map((x: { name: string }) => x.name))).toEqual([
      ["Alice"],
      ["Alice", "Bob"],
      ["Bob"],
    ]);
    w.people.close();
  });

  it("another node's people join the list; a node's goodbye takes them out", () => {
    const w = world();
    w.people.joined("spc_1", "s1", alice);
    w.people.heard(JSON.stringify({ n: "n2", s: "spc_1", p: [bob] }));
    w.people.heard(JSON.stringify({ n: "n2", s: "spc_1", p: [bob] })); // said again: no change
    w.people.heard(JSON.stringify({ n: "n2", s: "spc_1", p: [] }));
    expect(w.room).toEqual([["Alice"], ["Alice", "Bob"], ["Alice"]]);
    w.people.close();
  });
});
