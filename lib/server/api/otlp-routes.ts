import type { Hono } from "hono";
import { decodeOtlp, encodeResponse, encodingOf, OTLP_MAX_BYTES, type Signal } from "../otel/decode";
import { ingestOtlp } from "../otel/ingest";
import { unavailable } from "../storage";
import type { ChipsServices } from "../services";
import { fail, problemResponse, readBytes, type ApiEnv } from "./http";
import { signIn } from "./sign-in";

/**
 * OTLP/HTTP in ([OTL1], [OTL2], docs/OTEL.md): `POST /v1/traces`, `/v1/logs`, `/v1/metrics` on the
 * Chips port, the paths an exporter appends to `OTEL_EXPORTER_OTLP_ENDPOINT`. A harness's bearer
 * token (`OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer …`) says whose runs they become. The
 * checks run in the API's order: 401, 403, 503, 415, 413, 400; then the records are stored, and the
 * answer is OTLP's: 200 with an Export*ServiceResponse in the request's encoding, its partial
 * success counting what was refused; 429 / 503 with Retry-After when the client should retry.
 */
export function otlpRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  app.use("/v1/*", async (c, next) => {
    const cred = await signIn(svc, c);
    if (cred instanceof Response) return cred;
    if (cred.kind !== "harness" && cred.kind !== "runner")
      return fail("forbidden", "OTLP takes a harness token: OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer <token>");
    if (!svc.storage.available) return problemResponse(unavailable());
    c.set("cred", cred);
    await next();
  });

  for (const signal of ["traces", "logs", "metrics"] as const satisfies Signal[]) {
    app.post(`/v1/${signal}`, async (c) => {
      const cred = c.get("cred");
      if (cred.kind !== "harness" && cred.kind !== "runner") return fail("forbidden", "OTLP takes a harness token");
      const type = c.req.header("content-type");
      if (!encodingOf(type))
        return fail("unsupported_media_type", "send OTLP as application/x-protobuf or application/json");
      const raw = await readBytes(c, OTLP_MAX_BYTES);
      if (!raw.ok) return raw.response;
      const decoded = decodeOtlp(signal, type, c.req.header("content-encoding"), raw.value, OTLP_MAX_BYTES);
      if (!decoded.ok) return problemResponse(decoded.problem);
      const r = await ingestOtlp(svc, cred, signal, decoded.body);
      if (!r.ok) return problemResponse(r.problem);
      const out = encodeResponse(signal, decoded.encoding, r.refused);
      const bytes = typeof out.body === "string" ? out.body : Buffer.from(out.body);
      return new Response(bytes, { status: 200, headers: { "content-type": out.type } });
    });
  }
}
