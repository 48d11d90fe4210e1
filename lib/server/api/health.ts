import type { Hono } from "hono";
import { pendingMigrations } from "@/db/migrate";
import type { ChipsServices } from "../services";
import { json, type ApiEnv } from "./http";

/**
 * Liveness and readiness (docs/ARCHITECTURE.md, house rule 9). `/health/live` answers while the process
 * serves at all; `/health` (and `/health/ready`) answers 200 only when the database
 * answers and has every migration of this build, else 503 with what is missing — a load
 * balancer takes the node out meanwhile and back when it is ready again. A server shutting down
 * is not ready from its signal on ([OPS4]), whatever its database says.
 */
export function healthRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  app.get("/api/v1/health/live", () => json({ ok: true, live: true }));
  const ready = async () => {
    if (svc.stopping)
      return json({ ok: false, db: svc.database.kind, live: true, ready: false, state: "shutting_down" }, 503);
    const database = await svc.storage.check();
    let pending: string[] | null = null;
    if (database) pending = await pendingMigrations(svc.db).catch(() => null);
    const migrations = pending === null ? "unknown" : pending.length ? "pending" : "current";
    const ok = database && migrations === "current";
    const body = {
      ok,
      db: svc.database.kind,
      live: true,
      ready: ok,
      state: ok ? "ready" : "unavailable",
      storage: database ? "reachable" : "unreachable",
      migrations,
      ...(pending?.length ? { pending } : {}),
    };
    return json(body, ok ? 200 : 503);
  };
  app.get("/api/v1/health", ready);
  app.get("/api/v1/health/ready", ready);
}
