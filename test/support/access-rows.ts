import type { Who } from "./access-expect";
import { REVIEW_ROUTES } from "./access-rows-review";
import { RUN_ROUTES } from "./access-rows-runs";
import { WORKSPACE_ROUTES } from "./access-rows-workspace";

export { WHO, aTask, type Ctx, type Who } from "./access-expect";

/**
 * The rows of the role matrix (test/access-matrix.test.ts): for every HTTP route, people's
 * socket event and harness socket event, what each of owner / member / viewer / revoked /
 * other-workspace (and the owner's bearer token) gets back. A new route gets its row in the
 * access-rows-*.ts of its area, a new socket event here.
 */
export const ROUTES = { ...RUN_ROUTES, ...WORKSPACE_ROUTES, ...REVIEW_ROUTES };

/** Socket events of the people's namespace: what each gets back. `refused`: the handshake is refused. */
export const SOCKET_EVENTS: Record<string, Record<Who, "ok" | "space_not_found" | "refused" | "no answer">> = {
  join: { owner: "ok", member: "ok", viewer: "ok", revoked: "refused", other: "space_not_found", token: "ok" },
  history: { owner: "ok", member: "ok", viewer: "ok", revoked: "refused", other: "space_not_found", token: "ok" },
  leave: {
    owner: "no answer",
    member: "no answer",
    viewer: "no answer",
    revoked: "refused",
    other: "no answer",
    token: "no answer",
  },
};

/**
 * Socket events of the harnesses' namespace: a runner of the workspace, a plain harness of it
 * (`not heard`: it has no such handler), a revoked runner, and another workspace's runner.
 * The run asked about is the workspace's, leased to nobody.
 */
export const HARNESS_WHO = ["runner", "harness", "revoked", "other"] as const;
export type HarnessWho = (typeof HARNESS_WHO)[number];
export const HARNESS_EVENTS: Record<string, Record<HarnessWho, string>> = {
  "runner.hello": { runner: "ok", harness: "not heard", revoked: "refused", other: "ok" },
  "lease.renew": { runner: "not_your_run", harness: "not heard", revoked: "refused", other: "not_your_run" },
};
