import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A page of another origin (a node server on 127.0.0.1, port of its own) that attacks
 * `target` with the visitor's cookies:
 *   /form   an auto-submitted <form method=POST enctype=text/plain> whose body is the
 *           event as JSON (the classic CSRF; a top-level navigation, so its answer is seen)
 *   /fetch  fetch(target, {credentials: "include"}) with a JSON body (needs a CORS
 *           preflight) and a no-cors text/plain one; the page records what each did in
 *           window.__results.
 * Open it as http://127.0.0.1:PORT (another site than localhost) or http://localhost:PORT
 * (same site, other origin: SameSite cookies are sent, only the Origin check stands).
 */
export async function startOtherOrigin(target: string, event: Record<string, unknown>) {
  const json = JSON.stringify(event);
  // text/plain form encoding sends `name=value`: split the JSON so the `=` lands in a string.
  const name = json.slice(0, -1) + ',"pad":"';
  const attr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const pages: Record<string, string> = {
    "/form": `<!doctype html><form id="f" method="POST" action="${attr(target)}" enctype="text/plain">
<input type="hidden" name="${attr(name)}" value='"}'></form><script>document.getElementById("f").submit()</script>`,
    "/fetch": `<!doctype html><script>
window.__results = (async () => {
  const out = {};
  try {
    const r = await fetch(${JSON.stringify(target)}, { method: "POST", credentials: "include",
      headers: { "content-type": "application/json" }, body: ${JSON.stringify(json)} });
    out.cors = "answered " + r.status;
  } catch (e) { out.cors = "blocked: " + e.name; }
  try {
    const r = await fetch(${JSON.stringify(target)}, { method: "POST", mode: "no-cors", credentials: "include",
      headers: { "content-type": "text/plain" }, body: ${JSON.stringify(json)} });
    out.noCors = r.type;
  } catch (e) { out.noCors = "blocked: " + e.name; }
  return out;
})();
</script>`,
  };
  const server = http.createServer((req, res) => {
    const page = pages[new URL(req.url ?? "/", "http://x").pathname];
    res.writeHead(page ? 200 : 404, { "content-type": "text/html; charset=utf-8" }).end(page ?? "not found");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (host: "127.0.0.1" | "localhost", path: "/form" | "/fetch") => `http://${host}:${port}${path}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
