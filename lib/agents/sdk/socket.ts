import { io, type Socket } from "socket.io-client";
import { HARNESS_EVENTS, type HarnessServerToClient } from "../../core/protocol";
import { ChipsError } from "./errors";
import { deferred, isCommand, type CommandDispatcher, type CommandHandler, type CommandSubscription } from "./commands";

/** Options of `client.onCommand`. */
export interface SocketCommandOptions {
  /** Told about handler failures and refused credentials (default: console.warn). */
  onError?: (err: unknown) => void;
  /** Told when the connection comes and goes. */
  onStatus?: (status: "connected" | "disconnected") => void;
  /** First reconnect wait, ms (default 250); grows to `reconnectDelayMaxMs` (default 5000). */
  reconnectDelayMs?: number;
  reconnectDelayMaxMs?: number;
}

/**
 * Commands over Socket.IO, namespace `/harness` ([RT3]). The connection is the harness's
 * presence. It reconnects on its own, also after the server closed it; each delivery is
 * acknowledged on the socket at once (the receipt turns `delivered`), and commands the
 * server sends again after a reconnect are dropped as duplicates.
 */
export class SocketCommands implements CommandSubscription {
  /** The Socket.IO socket (for diagnostics). */
  readonly socket: Socket<HarnessServerToClient>;
  private closed = false;
  private readonly first = deferred<void>();
  private retry: ReturnType<typeof setTimeout> | null = null;

  constructor(
    url: string,
    token: string,
    private readonly dispatcher: CommandDispatcher,
    handler: CommandHandler,
    private readonly opts: SocketCommandOptions = {},
  ) {
    const delay = opts.reconnectDelayMs ?? 250;
    this.socket = io(`${url}/harness`, {
      path: "/socket.io",
      transports: ["websocket"],
      forceNew: true, // its own connection: never shared with other sockets of this process
      auth: { token },
      reconnection: true,
      reconnectionDelay: delay,
      reconnectionDelayMax: opts.reconnectDelayMaxMs ?? 5000,
    });
    // The payload is parsed (isCommand) before anything reads it: the type is the server's word only.
    this.socket.on(HARNESS_EVENTS.command, (payload: unknown, ack?: () => void) => {
      if (typeof ack === "function") ack(); // delivered: received, whatever happens next
      if (isCommand(payload)) this.dispatcher.dispatch(payload, handler, opts.onError ?? warn);
    });
    this.socket.on("connect", () => {
      this.first.resolve();
      opts.onStatus?.("connected");
    });
    this.socket.on("disconnect", (reason) => {
      opts.onStatus?.("disconnected");
      // The client reconnects by itself except when the server (or we) closed the socket.
      if (reason === "io server disconnect") this.reconnectLater(delay);
    });
    this.socket.on("connect_error", (err: Error) => {
      if (this.socket.active) return; // a transport error: the manager retries
      if (err.message === "unauthorized") {
        const e = new ChipsError({
          code: "unauthorized",
          status: 401,
          detail: "the /harness namespace refused this token (a harness or runner token is needed)",
        });
        this.first.reject(e);
        (opts.onError ?? warn)(e);
        this.close();
        return;
      }
      this.reconnectLater(delay);
    });
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  get duplicates(): number {
    return this.dispatcher.duplicates;
  }

  ready(): Promise<void> {
    return this.first.promise;
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.socket.disconnect();
  }

  private reconnectLater(ms: number) {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.closed && !this.socket.connected) this.socket.connect();
    }, ms);
  }
}

export function warn(err: unknown) {
  console.warn("[chips sdk]", err instanceof Error ? err.message : err);
}
