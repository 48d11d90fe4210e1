import { CliError, EXIT, UsageError } from "./errors";
import { problemLines, type Client } from "./http";

/**
 * `chips export … --otlp URL`: the runs as an OTLP/HTTP traces request, built by the server
 * (`?format=otlp`, docs/OTEL.md [OTL7]), posted on to the URL as it is. An endpoint without a
 * path gets `/v1/traces`, as OTEL_EXPORTER_OTLP_ENDPOINT does.
 */
export async function sendOtlp(
  client: Client,
  exportPath: string,
  target: string,
  headerList: string,
): Promise<{ url: string; bytes: number; answer: string }> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UsageError(`--otlp takes a URL (got "${target}")`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError("--otlp takes an http(s) URL");
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/v1/traces";
  const headers: Record<string, string> = { "content-type": "application/x-protobuf" };
  for (const pair of headerList.split(",").filter((p) => p.trim())) {
    const at = pair.indexOf("=");
    if (at < 1) throw new UsageError(`--otlp-headers takes k=v pairs separated by commas (got "${pair}")`);
    headers[decodeURIComponent(pair.slice(0, at).trim()).toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  let body: Buffer;
  try {
    const res = await fetch(client.url + exportPath, { headers: { authorization: `Bearer ${client.token}` } });
    body = Buffer.from(await res.arrayBuffer());
    if (!res.ok) {
      let problem = {};
      try {
        problem = JSON.parse(body.toString("utf8"));
      } catch {
        // not a problem+json: the status says it
      }
      throw new CliError(problemLines(res.status, problem, res.headers.get("retry-after")));
    }
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError([`cannot reach Chips at ${client.url}: ${(e as Error).message}`], EXIT.usage);
  }
  let res: Response;
  try {
    res = await fetch(url, { method: "POST", headers, body: new Uint8Array(body) });
  } catch (e) {
    throw new CliError([`cannot reach the OTLP receiver at ${url.href}: ${(e as Error).message}`], EXIT.usage);
  }
  const text = (await res.text()).replace(/\s+/g, " ").trim().slice(0, 200);
  if (!res.ok)
    throw new CliError([
      `error http_${res.status}: the OTLP receiver at ${url.href} refused the spans${text ? ` — ${text}` : ""}`,
    ]);
  return { url: url.href, bytes: body.length, answer: `HTTP ${res.status}` };
}
