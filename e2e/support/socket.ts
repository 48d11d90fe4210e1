import { io, type Socket } from "socket.io-client";
import type { BrowserContext } from "@playwright/test";
import { baseURL } from "./api";

/** The Cookie header a browser context would send to our server. */
export async function cookieHeader(context: BrowserContext): Promise<string> {
  const cookies = await context.cookies(baseURL());
  return cookies.map((c) => `${c.name}=${c.value}`).join("; ");
}

/**
 * A raw Socket.IO connection from Node, as the browser's feed makes it (path /socket.io,
 * websocket) but with the headers we choose. Answers the socket once connected, or the
 * connect error's message. `forceNew`: socket.io-client keeps one Manager per URL for the whole
 * worker process, so without it a spec that ran earlier (a RawRunner on /harness) would lend
 * this socket its connection — and its headers, without our cookie.
 */
export async function connectSocket(headers: Record<string, string>): Promise<{ socket: Socket } | { error: string }> {
  const socket = io(baseURL(), {
    path: "/socket.io",
    transports: ["websocket"],
    forceNew: true,
    extraHeaders: headers,
    reconnection: false,
    timeout: 10_000,
  });
  return new Promise((resolve) => {
    socket.once("connect", () => resolve({ socket }));
    socket.once("connect_error", (e) => {
      socket.close();
      resolve({ error: e.message });
    });
  });
}

/** `join {v:1, space_id, after_seq}` and its ack. */
export async function join(
  socket: Socket,
  spaceId: string,
  afterSeq = 0,
): Promise<{ ok?: boolean; head_seq?: number; error?: string }> {
  return socket.timeout(10_000).emitWithAck("join", { v: 1, space_id: spaceId, after_seq: afterSeq });
}
