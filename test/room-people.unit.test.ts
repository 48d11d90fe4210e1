import { afterEach, describe, expect, it, vi } from "vitest";
import type { PeopleChange } from "../lib/core/protocol";
import { RoomPeople } from "../lib/server/realtime/people";

/**
 * Who is in a room ([RT1]'s room, the people list beside the timeline): the room's sockets are
 * told the list only when it changes — a person's second socket changes nothing — and a socket
 * that joins is always told; other nodes hear this node's list only when it changes. A room is
 * told at most once per throttle window (fake timers below; 0 turns the window off).
 */
function world(throttleMs = 0) {
  /** The list as a socket in the room all along sees it after each frame, and each frame as sent. */
  const room: string[][] = [];
  const frames: PeopleChange[] = [];
  const except: (string | undefined)[] = [];
  const seen = new Map<string, string>();
  const one: [string, string[]][] = [];
  const published: string[] = [];
  const people = new RoomPeople({
    nodeId: "n1",
    emit: (_space, change, but) => {
      frames.push(change);
      except.push(but);
      for (const id of change.left) seen.delete(id);
      for (const p of change.joined) seen.set(p.id, p.name);
      room.push([...seen.values()]);
    },
    emitTo: (socket, _space, list) => one.push([socket, list.map((p) => p.name)]),
    publish: async (payload) => void published.push(payload),
    refreshMs: 60_000,
    throttleMs,
    onError: (e) => {
      throw e;
    },
  });
  return { people, room, frames, except, one, published };
}

const alice = { id: "prs_A", name: "Alice" };
const bob = { id: "prs_B", name: "Bob" };

describe("the people in a room", () => {
  it("[RT5] a person's second socket tells the room nothing; every socket that joins is told the whole list, the room only who came", async () => {
    const w = world();
    w.people.joined("spc_1", "s1", alice);
    w.people.joined("spc_1", "s2", alice);
    w.people.joined("spc_1", "s3", bob);
    expect(w.room).toEqual([["Alice"], ["Alice", "Bob"]]);
    expect(w.frames).toEqual([
      { joined: [alice], left: [] },
      { joined: [bob], left: [] },
    ]);
    expect(w.except).toEqual(["s1", "s3"]); // a joiner has it in the whole list already
    expect(w.one).toEqual([
      ["s1", ["Alice"]],
      ["s2", ["Alice"]],
      ["s3", ["Alice", "Bob"]],
    ]);
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
    w.one.length = 0;
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

  it("[RT5] this node's own words, heard back from the channel, change nothing (what it said is what it has)", async () => {
    const w = world();
    w.people.joined("spc_1", "s1", alice);
    const said = w.published.at(-1)!;
    expect(JSON.parse(said)).toEqual({ n: "n1", s: "spc_1", p: [alice] });
    w.people.heard(said);
    w.people.heard(JSON.stringify({ n: "n1", s: "spc_1", p: [alice, bob] })); // even a list it never said
    w.people.heard(JSON.stringify({ n: "n1", q: 1 })); // nor does it answer its own "say again"
    expect(w.room).toEqual([["Alice"]]);
    expect(w.published).toEqual([said]);
    w.people.heard(JSON.stringify({ n: "n10", s: "spc_1", p: [bob] })); // a node whose id begins like this one's is heard
    expect(w.room).toEqual([["Alice"], ["Alice", "Bob"]]);
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
    expect(w.one.map(([s, l]) => [s, l.length])).toEqual(names(50).map((_, i) => [`s${i}`, i + 1]));
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

describe("[RT5] what each socket is told adds up to the list", () => {
  afterEach(() => vi.useRealTimers());

  /** Each socket's view (of those `watched`, else all): the whole list when it joined, then each change the room was told but it. */
  function sockets(throttleMs: number, watched?: (s: string) => boolean) {
    const views = new Map<string, Map<string, string>>();
    const inRoom = new Set<string>();
    /** People named to each socket in the room's frames. */
    const named = new Map<string, number>();
    const people = new RoomPeople({
      nodeId: "n1",
      emit: (_space, change, except) => {
        for (const s of inRoom) {
          if (s === except || !views.has(s)) continue;
          const v = views.get(s)!;
          for (const id of change.left) v.delete(id);
          for (const p of change.joined) v.set(p.id, p.name);
          named.set(s, (named.get(s) ?? 0) + change.joined.length + change.left.length);
        }
      },
      emitTo: (s, _space, list) => {
        if (!watched || watched(s)) views.set(s, new Map(list.map((p) => [p.id, p.name])));
      },
      publish: async () => {},
      refreshMs: 60_000,
      throttleMs,
      onError: (e) => {
        throw e;
      },
    });
    return {
      people,
      views,
      named,
      join(s: string, p: { id: string; name: string }) {
        inRoom.add(s);
        people.joined("spc_1", s, p);
      },
      leave(s: string) {
        inRoom.delete(s);
        views.delete(s);
        people.left("spc_1", s);
      },
    };
  }

  it("[RT5] a socket told the whole list within a window hears of a change the room's others need not: one gone before it joined is back", async () => {
    vi.useFakeTimers();
    const w = sockets(250);
    w.join("a", alice); // told at once; a window opens
    w.join("b1", bob);
    vi.advanceTimersByTime(250); // the room told of Bob; the next window opens
    w.leave("b1"); // Bob gone, within the window
    w.join("late", { id: "prs_C", name: "Carol" }); // told the list without Bob
    w.join("b2", bob); // Bob back: for "a" nothing changed, for "late" he came
    vi.advanceTimersByTime(250);
    expect([...w.views.get("late")!.values()].sort()).toEqual(["Alice", "Bob", "Carol"]);
    expect([...w.views.get("a")!.values()].sort()).toEqual(["Alice", "Bob", "Carol"]);
    await w.people.leaveAll(0);
  });

  it("[RT5] joins, leaves, second tabs and another node's lists, at random across windows: every socket ends holding the list", async () => {
    vi.useFakeTimers();
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n) as number;
    const w = sockets(250);
    const open: string[] = [];
    for (let step = 0; step < 3000; step++) {
      const r = rand(10);
      if (r < 4 || open.length === 0) {
        const s = `s${step}`;
        open.push(s);
        w.join(s, { id: `prs_${rand(8)}`, name: "x" });
      } else if (r < 8) w.leave(open.splice(rand(open.length), 1)[0]);
      else {
        const theirs = Array.from({ length: rand(4) }, () => ({ id: `prs_${rand(8)}`, name: "x" }));
        w.people.heard(JSON.stringify({ n: "n2", s: "spc_1", p: theirs }));
      }
      if (rand(20) === 0) vi.advanceTimersByTime(rand(400));
    }
    vi.advanceTimersByTime(1000);
    const list = w.people
      .list("spc_1")
      .map((p) => p.id)
      .sort()
      .join();
    expect(open.length).toBeGreaterThan(0);
    for (const s of open) expect([...w.views.get(s)!.keys()].sort().join(), s).toBe(list);
    await w.people.leaveAll(0);
  });

  it("[RT5] 5,000 different people joining, 50 a window: a socket there all along is told each once", async () => {
    vi.useFakeTimers();
    const w = sockets(250, (s) => s === "watcher");
    w.join("watcher", { id: "prs_watcher", name: "W" });
    for (let i = 0; i < 5000; i++) {
      w.join(`s${i}`, { id: `prs_${i}`, name: `P${i}` });
      if (i % 50 === 49) vi.advanceTimersByTime(250);
    }
    vi.advanceTimersByTime(250);
    expect(w.views.get("watcher")!.size).toBe(5001);
    // The whole list each window named 50 + 100 + … + 5,000 = 252,500 people.
    expect(w.named.get("watcher")).toBe(5000);
    await w.people.leaveAll(0);
  });
});
