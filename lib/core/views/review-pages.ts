import type {
  Receipt,
  RollupBy,
  RollupRow,
  Run,
  RunFilter,
  RunListPage,
  SavedView,
  ShareLink,
  StoredEvent,
} from "@/lib/core/protocol";
import type { RunLog } from "@/lib/core/review/run-log";
import type { AskRollupBy, AskRollupRow, AskTally } from "@/lib/core/review/asks";
import type { Directory } from "./names";

/**
 * What each review page shows: the data a presenter (lib/server/pages/review.ts) reads and
 * the page's components draw. Types only, so components take them without reaching the server.
 */

/** Names the review pages show: people, harnesses and runners, rooms. */
export interface ReviewNames extends Directory {
  rooms: Record<string, string>;
}

export interface RunsPageData {
  names: ReviewNames;
  agents: string[];
  views: SavedView[];
  /** The view asked for, or the reason it could not be read. */
  filter: RunFilter;
  problem: string | null;
  page: RunListPage;
  count: number;
  /** The view's query string (no cursor): what a saved view keeps. */
  query: string;
}

export interface RunPageData {
  run: Run;
  /** The log in windows: a long run is not read whole (lib/core/review/run-log.ts). */
  log: RunLog;
  receipts: Receipt[];
  names: ReviewNames;
  /** The server's clock when the page was drawn (a live run's open bars end here). */
  now: string;
  /** A member or owner: may annotate and share. */
  canAct: boolean;
  /** The run's share links and their opens ([SHR1]); who is looking, and whether they own the workspace (may revoke any). */
  shares: ShareLink[];
  me: string;
  isOwner: boolean;
}

export interface ReplayData {
  run: Run;
  /** The room's events from the run's first to its last, ascending: what the room showed meanwhile. */
  events: StoredEvent[];
  names: ReviewNames;
  statusTtlSeconds: number;
}

export interface CompareData {
  runs: Run[];
  names: ReviewNames;
  /** Ids asked for that are not runs of this workspace. */
  missing: string[];
  /** Run id → its asks' tally ([ASKR3]). */
  asks: Record<string, AskTally>;
}

export interface RollupsData {
  by: RollupBy;
  from?: string;
  to?: string;
  rows: RollupRow[];
  names: ReviewNames;
  problem: string | null;
  /** Time to answer per person and per agent over the range's asks ([ASKR6]); `capped`: only the newest were read. */
  asks: { rows: Record<AskRollupBy, AskRollupRow[]>; asks: number; capped: boolean };
}
