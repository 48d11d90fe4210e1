import { timestamp } from "drizzle-orm/pg-core";

/** created_at: when the row was written, set by the database. */
export const created = () => timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow();
