import { describe, expect, it } from "vitest";
import { CommitBus, FanoutBus } from "../lib/server/buses";
import type { Committed } from "../lib/server/ingest/writer";
import type { OutFrame } from "../lib/server/realtime/raw";

const batch = (seq: number): Committed[] => [
  { event: { seq } as Committed["event"], body: `{"seq":${seq}}`, prevSeq: seq > 1 ? seq - 1 : null },
];

describe("[ARCH3] the commit bus", () => {
  it("[ARCH3] each named subscriber hears every batch, in the order they subscribed; one that throws does not keep the others from it", () => {
    const bus = new CommitBus();
    const heard: string[] = [];
    bus.subscribe("review-index", (ws, c) => void heard.push(`index ${ws} ${c[0].event.seq}`));
    bus.subscribe("task-auto-start", () => {
      throw new Error("auto-start broke");
    });
    bus.subscribe("room-hub", (ws, c) => void heard.push(`hub ${ws} ${c[0].event.seq}`));
    bus.publish("wsp_a", batch(1));
    bus.publish("wsp_b", batch(2));
    expect(heard).toEqual(["index wsp_a 1", "hub wsp_a 1", "index wsp_b 2", "hub wsp_b 2"]);
  });

  it("[ARCH3] a name has one subscriber; once it leaves it hears nothing and the name is free again", () => {
    const bus = new CommitBus();
    const heard: number[] = [];
    const leave = bus.subscribe("room-hub", (_ws, c) => void heard.push(c[0].event.seq));
    expect(() => bus.subscribe("room-hub", () => {})).toThrow(/already has a room-hub subscriber/);
    bus.publish("wsp_a", batch(1));
    leave();
    bus.publish("wsp_a", batch(2));
    bus.subscribe("room-hub", (_ws, c) => void heard.push(c[0].event.seq * 10));
    bus.publish("wsp_a", batch(3));
    expect(heard).toEqual([1, 30]);
  });
});

describe("[ARCH3] the fan-out bus", () => {
  const frame = (seq: number, type: string): OutFrame => ({ seq, spaceId: "spc_a", type, json: `{"seq":${seq}}` });

  it("[ARCH3] what follows any node's commit hears the hub's frames by name: an ask fan-out that throws does not keep commands from their harness", () => {
    const bus = new FanoutBus();
    const routed: number[] = [];
    bus.subscribe("ask-fanout", () => {
      throw new Error("fan-out broke");
    });
    bus.subscribe("harness-routing", (frames) => void routed.push(...frames.map((f) => f.seq)));
    bus.publish([frame(1, "run.asked"), frame(2, "run.command")]);
    bus.publish([frame(3, "run.command")]);
    expect(routed).toEqual([1, 2, 3]);
    expect(() => bus.subscribe("harness-routing", () => {})).toThrow(
      /fan-out bus already has a harness-routing subscriber/,
    );
  });
});
