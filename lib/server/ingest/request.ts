import type { IncomingEvent } from "@/lib/core/protocol";
import type { Credential } from "../credentials";

/** One request: its events are stored all together or not at all ([HTTP1]). */
export interface IngestRequest {
  credential: Credential;
  events: IncomingEvent[];
  hashes: string[];
  /** JSON pointer of each event in the request body ("" or "/events/3"). */
  pointers: string[];
  /**
   * The server time each event was first stored at, for an import of another workspace's
   * log (lib/server/review/import.ts): its run keeps its times. Left out, events get the
   * commit's time ([ENV4]); never taken from a client's own events.
   */
  storedAt?: string[];
}
