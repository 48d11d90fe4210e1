import { afterEach, describe, expect, it, vi } from "vitest";
import { RoomPeople } from "../lib/server/realtime/people";

/**
 * Who is in a room ([RT1]'s room, the people list beside the timeline): the room's sockets are
 * told the list only when it changes — a person's second socket changes nothing — and a socket
 * that joins is always told; other nodes hear this node's list only when it changes. A room is
 * told at most once per throttle window (fake timers below; 0 turns the window off).
 */
function world(throttleMs = 0) {
  const room: string[][] = [];
  const one: [string, string[]][] = [];
  const published: string[] = [];
  const people = new RoomPeople({
    nodeId: "n1",
    emit: (_space, list) => room.push(list.map((p) => p.name)),
    emitTo: (socket, _space, list) => one.push([socket, list.map((p) => p.name)]),
    publish: async (payload) => void published.push(payload),
    refreshMs: 60_000,
    throttleMs,
    onError: (e) => {
      throw e;
    },
  });
  return { people, room, one, published };
}

const alice = { id: "prs_A", name: "Alice" };
const bob = { id: "prs_B", name: "Bob" };

describe("the people in a room", () => {
  it("a person's second socket tells the room nothing, but is itself told the list", async () => {
    const w = world();
    w.people.joined("spc_1", "s1", alice);
    w.people.joined("spc_1", "s2", alice);
    w.people.joined("spc_1", "s3", bob);
    expect(w.room).toEqual([["Alice"], ["Alice", "Bob"]]);
    expect(w.one).toEqual([["s2", ["Alice"]]]);
    await w.people.leaveAll(0);
  });

  it("leaving tells the room only when a person is gone from it", async () => {
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
    await w.people.leaveAll(0);
  });

  it("other nodes hear this node's list when it changes, not on every socket", async () => {
    const w = world();
    for (let i = 0; i < 50; i++) w.people.joined("spc_1", `a${i}`, alice);
    w.people.joined("spc_1", "b", bob);
    for (let i = 0; i < 50; i++) w.people.left("spc_1", `a${i}`);
    expect(w.published.map((p) => JSON.parse(p).p.map((x: { name: string }) => x.name))).toEqual([
      ["Alice"],
      ["Alice", "Bob"],
      ["Bob"],
    ]);
    await w.people.leaveAll(0);
  });

  it("shutting down: other nodes hear every room of this node emptied, and the disconnects after say and tell nothing", async () => {
    const w = world();
    w.people.joined("spc_1", "s1", alice);
    w.people.joined("spc_2", "s2", bob);
    w.published.length = 0;
    w.room.length = 0;
    await w.people.leaveAll(1000);
    expect(w.published.map((p) => JSON.parse(p))).toEqual([
      { n: "n1", s: "spc_1", p: [] },
      { n: "n1", s: "spc_2", p: [] },
    ]);
    w.people.left("spc_1", "s1");
    w.people.left("spc_2", "s2");
    w.people.heard(JSON.stringify({ n: "n2", s: "spc_1", p: [bob] }));
    w.people.joined("spc_3", "s3", alice);
    expect(w.published).toHaveLength(2);
    expect(w.room).toEqual([]);
    expect(w.one).toEqual([]);
  });

  it("shutting down waits for the NOTIFYs still unanswered, a leave's and its own, but no longer than its limit", async () => {
    const answer: (() => void)[] = [];
    const people = new RoomPeople({
      nodeId: "n1",
      emit: () => {},
      emitTo: () => {},
      publish: () => new Promise<void>((r) => answer.push(r)),
      refreshMs: 60_000,
      throttleMs: 0,
      onError: (e) => {
        throw e;
      },
    });
    people.joined("spc_1", "s1", alice);
    people.joined("spc_1", "s2", bob);
    people.left("spc_1", "s2");
    answer.shift()!(); // the join of Alice is answered; Bob's join and leave are not
    let closed = false;
    const closing = people.leaveAll(60_000).then(() => (closed = true));
    expect(answer).toHaveLength(3); // Bob's join, his leave, the goodbye
    const [join, leave, goodbye] = answer;
    join();
    goodbye();
    await new Promise((r) => setImmediate(r));
    expect(closed, "Bob's leave is not answered yet").toBe(false);
    leave();
    await closing;
    expect(closed).toBe(true);

    vi.useFakeTimers();
    const stuck = new RoomPeople({
      nodeId: "n1",
      emit: () => {},
      emitTo: () => {},
      publish: () => new Promise<void>(() => {}),
      refreshMs: 60_000,
      onError: () => {},
    });
    stuck.joined("spc_1", "s1", alice);
    const given = stuck.leaveAll(1000);
    await vi.advanceTimersByTimeAsync(1000);
    await given;
    vi.useRealTimers();
  });

  it("another node's people join the list; a node's goodbye takes them out", async () => {
    const w = world();
    w.people.joined("spc_1", "s1", alice);
    w.people.heard(JSON.stringify({ n: "n2", s: "spc_1", p: [bob] }));
    w.people.heard(JSON.stringify({ n: "n2", s: "spc_1", p: [bob] })); // said again: no change
    w.people.heard(JSON.stringify({ n: "n2", s: "spc_1", p: [] }));
    expect(w.room).toEqual([["Alice"], ["Alice", "Bob"], ["Alice"]]);
    await w.people.leaveAll(0);
  });
});

describe("the people in a room, many joining at once", () => {
  afterEach(() => vi.useRealTimers());
  const person = (i: number) => ({ id: `prs_${i}`, name: `P${i}` });
  const names = (n: number) => Array.from({ length: n }, (_, i) => `P${i}`);

  it("a lone join is told at once; changes within the window are told once, the latest list, when it ends", async () => {
    vi.useFakeTimers();
    const w = world(250);
    w.people.joined("spc_1", "s0", person(0));
    expect(w.room).toEqual([["P0"]]);
    for (let i = 1; i < 50; i++) w.people.joined("spc_1", `s${i}`, person(i));
    // Each joiner was told the list as it found it; the room nothing more yet.
    expect(w.room).toEqual([["P0"]]);
    expect(w.one.map(([s, l]) => [s, l.length])).toEqual(names(49).map((_, i) => [`s${i + 1}`, i + 2]));
    vi.advanceTimersByTime(250);
    expect(w.room).toEqual([["P0"], names(50)]);
    // The window the last frame opened ends with nothing new: nothing is told.
    vi.advanceTimersByTime(1000);
    expect(w.room).toHaveLength(2);
    await w.people.leaveAll(0);
  });

  it("a leave within the window is told at its end; one that undoes the change tells nothing", async () => {
    vi.useFakeTimers();
    const w = world(250);
    w.people.joined("spc_1", "s0", person(0));
    w.people.joined("spc_1", "s1", person(1));
    w.people.left("spc_1", "s1");
    vi.advanceTimersByTime(250);
    expect(w.room).toEqual([["P0"]]);
    w.people.left("spc_1", "s0");
    expect(w.room).toEqual([["P0"], []]);
    // The emptied room is forgotten: its window ends telling nothing, and no other opens.
    vi.advanceTimersByTime(10_000);
    expect(w.room).toEqual([["P0"], []]);
    await w.people.leaveAll(0);
  });
});
