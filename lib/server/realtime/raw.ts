import { Decoder, Encoder, PacketType, type Packet } from "socket.io-parser";

/**
 * JSON already serialized (stored event bodies, a page of them): the Socket.IO encoder below
 * writes it as is, so a stored event is serialized once — by the writer — and never parsed
 * and re-encoded on its way to a room, a catch-up or a history page.
 */
export class RawJson {
  constructor(readonly json: string) {}
}

/** A frame as a room receives it ([RT4]): the stored body with its space's `prev_seq` added last. */
export function frameJson(body: string, prevSeq: number | null): string {
  return `${body.slice(0, body.lastIndexOf("}"))},"prev_seq":${prevSeq ?? 0}}`;
}

/** A stored event on its way to sockets: its seq, space and type for routing, its frame JSON to send. */
export interface OutFrame {
  seq: number;
  spaceId: string | null;
  type: string;
  json: string;
}

/** A JSON array of frames, as one raw value. */
export const framePage = (frames: readonly { json: string }[]) =>
  new RawJson(`[${frames.map((f) => f.json).join(",")}]`);

const valueJson = (v: unknown) => (v instanceof RawJson ? v.json : (JSON.stringify(v) ?? "null"));

const isPlain = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype;

/** An argument that is raw, or a plain object with a raw value (an ack `{ok, events}`, a snapshot). */
const holdsRaw = (v: unknown) =>
  v instanceof RawJson || (isPlain(v) && Object.values(v).some((x) => x instanceof RawJson));

function argJson(v: unknown): string {
  if (!isPlain(v) || !holdsRaw(v)) return valueJson(v);
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v))
    if (x !== undefined && typeof x !== "function") parts.push(`${JSON.stringify(k)}:${valueJson(x)}`);
  return `{${parts.join(",")}}`;
}

/**
 * socket.io-parser's encoder, but an event or ack carrying a `RawJson` is written straight
 * into the packet string: the same wire format (`2["events",[…]]`) clients already decode,
 * without walking the data for binary or stringifying it again. A room broadcast is encoded
 * once by Socket.IO and the same packet (and WebSocket frame) written to every socket.
 */
class RawEncoder extends Encoder {
  encode(obj: Packet): ReturnType<Encoder["encode"]> {
    const data: unknown = obj.data;
    if ((obj.type === PacketType.EVENT || obj.type === PacketType.ACK) && Array.isArray(data) && data.some(holdsRaw)) {
      const nsp = obj.nsp && obj.nsp !== "/" ? `${obj.nsp},` : "";
      return [`${obj.type}${nsp}${obj.id ?? ""}[${data.map(argJson).join(",")}]`];
    }
    return super.encode(obj);
  }
}

/** The `parser` option of the Socket.IO server: decoding is socket.io-parser's own. */
export const rawParser = { Encoder: RawEncoder, Decoder };
