import type { Context } from "hono";
import { LIMITS, type ProblemError } from "@/lib/core/protocol";
import type { OTLP_ROUTES } from "@/lib/core/routes";
import type { WorkspaceCredential } from "../credentials";
import { decodeOtlp, encodeResponse, type Signal } from "../otel/decode";
import { ingestOtlp } from "../otel/ingest";
import type { ChipsServices } from "../services";
import { isProblem, type Handlers } from "./adapter";
import type { ApiEnv } from "./http";

/**
 * The handlers of lib/core/routes/otlp.ts ([OTL1], [OTL2], docs/OTEL.md): the adapter has checked
 * the harness's token and the media type; here the bytes are read (413), decoded (415 for another
 * encoding, 413 past the bound after gzip, 400 for a body that does not decode) and stored, and
 * the answer is OTLP's: 200 with an Export*ServiceResponse in the request's encoding, its partial
 * success counting what was refused; 429 / 503 with Retry-After when the client should retry.
 */
export function otlpHandlers(
  svc: Pick<ChipsServices, "database" | "db" | "limiter" | "presence" | "writer">,
): Handlers<typeof OTLP_ROUTES> {
  async function take(
    signal: Signal,
    {
      c,
      cred,
      octets,
    }: { c: Context<ApiEnv>; cred: WorkspaceCredential; octets: () => Promise<Buffer | ProblemError> },
  ) {
    const raw = await octets();
    if (isProblem(raw)) return raw;
    const type = c.req.header("content-type");
    const decoded = decodeOtlp(signal, type, c.req.header("content-encoding"), raw, LIMITS.otlpBodyBytes);
    if (!decoded.ok) return decoded.problem;
    const r = await ingestOtlp(svc, cred, signal, decoded.body);
    if (!r.ok) return r.problem;
    const out = encodeResponse(signal, decoded.encoding, r.refused);
    const body = typeof out.body === "string" ? out.body : Buffer.from(out.body);
    return { status: 200 as const, raw: body, headers: { "content-type": out.type } };
  }
  return {
    otlpTraces: (call) => take("traces", call),
    otlpLogs: (call) => take("logs", call),
    otlpMetrics: (call) => take("metrics", call),
  };
}
