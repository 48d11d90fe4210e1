import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { created } from "./columns";

/** A workspace and its seq counter row: bumped once per commit, so seq order = commit order ([ENV8]). */
export const workspaces = pgTable("workspaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  seqHead: bigint("seq_head", { mode: "number" }).notNull().default(0),
  createdAt: created(),
});

export const spaces = pgTable(
  "spaces",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    name: text("name").notNull(),
    /** Seq of the space's newest event: each event stores the one before it ([RT4] prev_seq). */
    seqHead: bigint("seq_head", { mode: "number" }).notNull().default(0),
    createdAt: created(),
  },
  (t) => [index("spaces_workspace_idx").on(t.workspaceId)],
);

export const persons = pgTable("persons", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id")
    .notNull()
    .references(() => workspaces.id),
  name: text("name").notNull(),
  /** owner | member | viewer (lib/server/roles.ts). */
  role: text("role").notNull(),
  createdAt: created(),
  /** Removed from the workspace: every session and token of theirs stops at once. */
  revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "string" }),
});

/** Invites by link: the secret's hash, a role, single-use or good until it expires. */
export const invites = pgTable(
  "invites",
  {
    tokenHash: text("token_hash").primaryKey(),
    id: text("id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    role: text("role").notNull(),
    singleUse: boolean("single_use").notNull(),
    uses: integer("uses").notNull().default(0),
    createdBy: text("created_by").notNull(),
    createdAt: created(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [uniqueIndex("invites_id_key").on(t.id)],
);

/** Harnesses and runners (a runner is a harness that may also be sent `runner.start`). */
export const harnesses = pgTable("harnesses", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id")
    .notNull()
    .references(() => workspaces.id),
  name: text("name").notNull(),
  kind: text("kind").notNull(),
  createdAt: created(),
});

/** Bearer credentials, stored as SHA-256 of the token only. Admin credentials have no workspace. */
export const credentials = pgTable(
  "credentials",
  {
    tokenHash: text("token_hash").primaryKey(),
    /** The token's public id (tok_…): listed and revoked by it, never by its hash. */
    id: text("id").notNull(),
    kind: text("kind").notNull(),
    workspaceId: text("workspace_id"),
    subjectId: text("subject_id").notNull(),
    createdAt: created(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "string" }),
    /** Written when a node resolves it from the database: exact to about the credential cache time. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [index("credentials_subject_idx").on(t.subjectId), uniqueIndex("credentials_id_key").on(t.id)],
);

/** [ENV11] an agent id belongs to the harness that first spoke for it. */
export const agents = pgTable(
  "agents",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    harnessId: text("harness_id").notNull(),
    createdAt: created(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.id] })],
);

/** Server-wide facts, e.g. which workspace the first start made. */
export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/** One-time login links (the Jupyter pattern): the secret's hash, used at most once. */
export const loginLinks = pgTable("login_links", {
  tokenHash: text("token_hash").primaryKey(),
  workspaceId: text("workspace_id").notNull(),
  personId: text("person_id").notNull(),
  nextPath: text("next_path").notNull(),
  createdAt: created(),
  expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }).notNull(),
  usedAt: timestamp("used_at", { withTimezone: true, mode: "string" }),
});

/** Browser sessions: the cookie's hash, bound to one person of one workspace. */
export const sessions = pgTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    personId: text("person_id").notNull(),
    createdAt: created(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }).notNull(),
    /** As for credentials: exact to about the cache time. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [index("sessions_person_idx").on(t.personId)],
);
