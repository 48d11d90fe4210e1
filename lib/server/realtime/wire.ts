import type { Namespace, Server, Socket } from "socket.io";
import type {
  RoomClientToServer,
  RoomServerToClient,
  RunnerClientToServer,
  RunnerServerToClient,
} from "@/lib/core/protocol";
import type { Credential } from "../credentials";
import type { RawJson } from "./raw";

/**
 * Socket.IO's generics for the server: the event maps of lib/core/protocol/socket.ts, with pages of frames as the raw JSON the server writes them as. Socket.IO
 * types a server's namespaces alike, so both namespaces' maps are one here; each namespace
 * listens only to its own events (person-socket.ts, harness.ts).
 */
type Listen = RoomClientToServer<RawJson> & RunnerClientToServer;
type Emit = RoomServerToClient<RawJson, RawJson> & RunnerServerToClient;
/** What the handshake put on a socket: the credential it proved. */
interface SocketData {
  cred: Credential;
}

export type ChipsServer = Server<Listen, Emit, Record<string, never>, SocketData>;
export type ChipsNamespace = Namespace<Listen, Emit, Record<string, never>, SocketData>;
export type ChipsSocket = Socket<Listen, Emit, Record<string, never>, SocketData>;
