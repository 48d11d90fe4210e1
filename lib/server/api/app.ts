import { Hono, type Context } from "hono";
import { problem } from "@/lib/core/protocol";
import { ROUTES } from "@/lib/core/routes";
import type { ChipsServices } from "../services";
import { isProblem, mountAll, type Handlers } from "./adapter";
import { fail, problemResponse, type ApiEnv } from "./http";
import { signIn } from "./sign-in";
import { coreHandlers } from "./core-routes";
import { runHandlers } from "./run-routes";
import { roomHandlers } from "./room-routes";
import { peopleHandlers } from "./people-routes";
import { reviewHandlers } from "./review-routes";
import { shareHandlers } from "./share-routes";
import { otlpHandlers } from "./otlp-routes";
import { askHandlers } from "./ask-routes";
import { webhookHandlers } from "./webhook-routes";
import { log } from "../log";
import { unavailable } from "../storage";

/** The HTTP API of docs/PROTOCOL.md §4 and docs/API.md, on our own router (Next route handlers cost ~3 ms each). */
export function createApi(svc: ChipsServices) {
  const app = new Hono<ApiEnv>();
  const handlers: Handlers<typeof ROUTES> = {
    ...coreHandlers(svc),
    ...runHandlers(svc),
    ...roomHandlers(svc),
    ...peopleHandlers(svc),
    ...reviewHandlers(svc),
    ...shareHandlers(svc),
    ...otlpHandlers(svc),
    ...askHandlers(svc),
    ...webhookHandlers(svc),
  };

  app.onError((err, c) => {
    if (svc.storage.failed(err, `${c.req.method} ${c.req.routePath}`)) return problemResponse(unavailable());
    log.error(
      { err, requestId: c.req.header("x-request-id"), route: `${c.req.method} ${c.req.routePath}` },
      "unhandled API error",
    );
    return problemResponse(problem("internal", "something went wrong on our side"));
  });
  app.notFound(() => fail("not_found", "no such endpoint"));

  // The routes anyone may call come before the credential check; the table says which they are.
  mountAll(app, svc, ROUTES, handlers, (r) => !!r.who.open);

  // Everything below needs a credential (lib/server/api/sign-in.ts): the API, and OTLP/HTTP in on
  // the paths exporters append to their endpoint (lib/core/routes/otlp.ts).
  const signedIn = async (c: Context<ApiEnv>, next: () => Promise<void>) => {
    const cred = await signIn(svc, c);
    if (isProblem(cred)) return problemResponse(cred);
    c.set("cred", cred);
    return storageGate(c, next);
  };
  app.use("/api/v1/*", signedIn);
  app.use("/v1/*", signedIn);

  /**
   * While the database is unreachable a write is refused at once (503 + Retry-After) rather
   * than queued on a dead connection; a read goes ahead (some are served from memory) and
   * says so with `Chips-Storage: unavailable`.
   */
  async function storageGate(c: Context<ApiEnv>, next: () => Promise<void>) {
    if (svc.storage.available) return next();
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return problemResponse(unavailable());
    await next();
    c.res.headers.set("chips-storage", "unavailable");
  }

  mountAll(app, svc, ROUTES, handlers, (r) => !r.who.open);

  return app;
}
