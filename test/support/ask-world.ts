import { afterAll, beforeAll } from "vitest";
import { ev, post, request, serverWithWorkspace, type Workspace } from "./api";
import { invited } from "./asks";
import type { TestServer } from "./server";

type Person = Awaited<ReturnType<typeof invited>>;

/**
 * What the asks API tests share: one server (no rate or sign-in limits), its workspace with
 * a member (Dana) and a viewer (Vic) besides the owner, made before the file's tests and
 * closed after them, and the calls they make on it. Read its fields inside a test.
 */
export function askWorld() {
  const w = {} as { server: TestServer; ws: Workspace; member: Person; viewer: Person };
  beforeAll(async () => {
    Object.assign(w, await serverWithWorkspace({ rateLimit: 0, authAttemptsPerMinute: 0 }));
    w.member = await invited(w.server, w.ws, "member", "Dana");
    w.viewer = await invited(w.server, w.ws, "viewer", "Vic");
  });
  afterAll(() => w.server?.close());
  const harnessPost = (body: unknown) => post(w.server, w.ws.token, body);
  return Object.assign(w, {
    /** The owner's credential, for answering. */
    owner: () => ({ token: w.ws.person_token }),
    run: async (runId: string) => (await request(`${w.server.url}/api/v1/runs/${runId}`, { token: w.ws.token })).body,
    asksOf: async (runId: string, token = w.ws.token) =>
      (await request(`${w.server.url}/api/v1/runs/${runId}/asks`, { token })).body.asks as any[],
    harnessPost,
    /** The harness says what it did with an answer ([ASK4]). */
    applied: (runId: string, askId: string, result = "applied", reason?: string) =>
      harnessPost(
        ev(w.ws, "run.answer_applied", { run_id: runId, ask_id: askId, result, ...(reason ? { reason } : {}) }),
      ),
  });
}
