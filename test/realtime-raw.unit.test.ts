import { describe, expect, it } from "vitest";
import { Decoder, Encoder, PacketType, type Packet } from "socket.io-parser";
import { framePage, frameJson, rawParser, RawJson } from "../lib/server/realtime/raw";

const body = JSON.stringify({
  v: 1,
  type: "message.posted",
  id: "evt_1",
  seq: 7,
  space_id: "spc_1",
  text: 'quote " and \\ and }',
});

/** What the stock encoder writes for the same data, parsed. */
const stock = (p: Packet) => new Encoder().encode(p);
const raw = (p: Packet) => new rawParser.Encoder().encode(p);

function decode(s: string): Packet {
  const d = new Decoder();
  let out: Packet | null = null;
  d.on("decoded", (p: Packet) => (out = p));
  d.add(s);
  return out!;
}

describe("[RT4] stored strings go out as they are", () => {
  it("[RT4] a frame is the stored body with prev_seq added, byte for byte the same packet as encoding the parsed frame", () => {
    const frame = { ...JSON.parse(body), prev_seq: 3 };
    expect(JSON.parse(frameJson(body, 3))).toEqual(frame);
    const page = framePage([{ json: frameJson(body, 3) }, { json: frameJson(body, null) }]);
    expect(raw({ type: PacketType.EVENT, nsp: "/", data: ["events", page] })).toEqual(
      stock({ type: PacketType.EVENT, nsp: "/", data: ["events", [frame, { ...frame, prev_seq: 0 }]] }),
    );
  });

  it("[RT4] acks and snapshots carry raw pages inside an object, in other namespaces too; everything else is the stock encoding", () => {
    const frame = { ...JSON.parse(body), prev_seq: 0 };
    const ack = raw({
      type: PacketType.ACK,
      nsp: "/harness",
      id: 12,
      data: [{ ok: true, events: framePage([{ json: frameJson(body, 0) }]), skip: undefined }],
    });
    expect(ack).toEqual(
      stock({ type: PacketType.ACK, nsp: "/harness", id: 12, data: [{ ok: true, events: [frame] }] }),
    );
    expect(decode(ack[0]).data).toEqual([{ ok: true, events: [frame] }]);
    const plain: Packet = { type: PacketType.EVENT, nsp: "/", data: ["people", { space_id: "spc_1", people: [] }] };
    expect(raw(plain)).toEqual(stock(plain));
    expect(raw({ type: PacketType.EVENT, nsp: "/", data: ["x", new RawJson("[]")] })).toEqual(['2["x",[]]']);
  });
});
