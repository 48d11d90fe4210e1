import { errorsOf, Problem, type RouteDecl } from "../../lib/core/protocol";
import { ROUTES } from "../../lib/core/routes";

/**
 * Every answer a test gets through `request()` (test/support/api.ts) is held to its route's
 * declaration (lib/core/routes, [HTTP5]): a success to the schema declared for its status and
 * media type, a refusal to the problem+json shape with a code the route declares.
 */

const matchers = Object.values(ROUTES as Record<string, RouteDecl>).map((r) => ({
  r,
  re: new RegExp(`^${r.path.replace(/:[A-Za-z_]+/g, "[^/]+")}$`),
}));

/** The route a request reached, or undefined (an unknown path: the API's 404). */
export function routeOf(method: string, pathname: string): RouteDecl | undefined {
  const m = method.toLowerCase();
  return matchers.find((x) => x.r.method === m && x.re.test(pathname))?.r;
}

/** What is wrong with an answer by its route's declaration; empty when it fits. */
export function answerFaults(r: RouteDecl, status: number, contentType: string | null, text: string): string[] {
  const media = (contentType ?? "").split(";")[0].trim();
  const where = `${r.method.toUpperCase()} ${r.path} → ${status}`;
  const declared = r.answers[status];
  if (declared) {
    if (!declared.schema) return text ? [`${where}: a body where the route declares none`] : [];
    if (media !== "application/json") {
      const known = media === (declared.media ?? "application/json") || media in (declared.also ?? {});
      return known ? [] : [`${where}: answered ${media}, which the route does not declare`];
    }
    const parsed = declared.schema.safeParse(JSON.parse(text));
    return parsed.success ? [] : parsed.error.issues.map((i) => `${where}: /${i.path.join("/")} ${i.message}`);
  }
  if (status < 400) return [`${where}: a status the route does not declare`];
  if (media !== "application/problem+json") return [`${where}: a refusal as ${media}, not problem+json`];
  const p = Problem.safeParse(JSON.parse(text));
  if (!p.success) return p.error.issues.map((i) => `${where}: problem /${i.path.join("/")} ${i.message}`);
  if (p.data.status !== status) return [`${where}: the problem says status ${p.data.status}`];
  return errorsOf(r).includes(p.data.code) ? [] : [`${where}: code ${p.data.code}, which the route does not declare`];
}
