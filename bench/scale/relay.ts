/**
 * The bare relay of the scale bench: no Chips logic, no database, no auth. `POST
 * /api/v1/events` takes one event, gives it the next seq of its workspace and its room's
 * `prev_seq` (counters in memory) and emits it to the room's sockets with `io.to(room)`;
 * `join {space_id}` puts a socket in that room and answers the room's head. Same clients,
 * same poster, same shape (workspaces × rooms × sockets) as Chips in the same run: what
 * Socket.IO itself costs this machine to fan out.
 *
 *   PORT=0 HOST=127.0.0.1 node --import tsx bench/scale/relay.ts
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";

const wsHeads = new Map<string, number>();
const spaceHeads = new Map<string, number>();

const server = http.createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/api/v1/events") return void res.writeHead(404).end();
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    try {
      const e = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const seq = (wsHeads.get(e.workspace_id) ?? 0) + 1;
      wsHeads.set(e.workspace_id, seq);
      const prev = spaceHeads.get(e.space_id) ?? null;
      spaceHeads.set(e.space_id, seq);
      const stored = { ...e, ts: new Date().toISOString(), seq, prev_seq: prev };
      io.to(e.space_id).emit("events", [stored]);
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ events: [stored] }));
    } catch (err) {
      res.writeHead(400, { "content-type": "text/plain" }).end(String(err));
    }
  });
});

const io = new Server(server, { path: "/socket.io", serveClient: false, maxHttpBufferSize: 64 * 1024 });
io.on("connection", (socket) => {
  socket.on("join", (raw: { space_id?: string } | null, ack?: (a: unknown) => void) => {
    const space = String(raw?.space_id ?? "");
    void socket.join(space);
    ack?.({ ok: true, head_seq: spaceHeads.get(space) ?? 0 });
  });
});

server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1", () => {
  console.log(`relay listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
const stop = () => {
  io.disconnectSockets(true);
  server.closeAllConnections();
  io.close(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
