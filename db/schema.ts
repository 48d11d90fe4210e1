/**
 * The tables, one file per concern under db/tables/: who is in a workspace and how they sign
 * in (workspace.ts), the append-only log and the run read models written with it (log.ts),
 * the review index, saved views and share links (review.ts), the room's state and budgets
 * (rooms.ts), and the asks people answer (asks.ts). drizzle-kit and the code read them all from here.
 */
export * from "./tables/workspace";
export * from "./tables/log";
export * from "./tables/review";
export * from "./tables/rooms";
export * from "./tables/otel";
export * from "./tables/asks";
