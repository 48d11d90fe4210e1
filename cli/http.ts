import { CliError, EXIT } from "./errors";

/** Where to send requests, and the bearer token to send with them. */
export interface Client {
  url: string;
  token: string;
}

interface Problem {
  code?: unknown;
  detail?: unknown;
  title?: unknown;
  errors?: unknown;
}

/** `error <code>: <detail>` and one `  at <pointer>: <message>` line per field error. */
export function problemLines(status: number, p: Problem, retryAfter: string | null): string[] {
  const code = typeof p.code === "string" ? p.code : `http_${status}`;
  const detail = typeof p.detail === "string" ? p.detail : typeof p.title === "string" ? p.title : `HTTP ${status}`;
  const lines = [`error ${code}: ${detail}`];
  if (Array.isArray(p.errors)) {
    for (const e of p.errors as { pointer?: unknown; message?: unknown }[]) {
      lines.push(`  at ${String(e?.pointer ?? "")}: ${String(e?.message ?? "")}`);
    }
  }
  if (retryAfter) lines.push(`  retry after ${retryAfter} s`);
  return lines;
}

function unreachable(url: string, err: unknown): CliError {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const why = cause?.code ?? cause?.message ?? (err as Error)?.message;
  return new CliError(
    [`cannot reach Chips at ${url} — is the server running (npm start)?`, ...(why ? [`  (${why})`] : [])],
    EXIT.usage,
  );
}

/**
 * One JSON request to the Chips API. Answers the parsed body of a 2xx; a problem+json (or
 * any other) error answer becomes a CliError (exit 1), a network failure exit 2.
 */
export async function call<T = unknown>(
  client: Client,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: string,
): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${client.token}`, accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  let text: string;
  try {
    res = await fetch(client.url + path, { method, headers, body });
    text = await res.text();
  } catch (err) {
    throw unreachable(client.url, err);
  }
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: handled below
  }
  if (!res.ok) {
    if (parsed && typeof parsed === "object") {
      throw new CliError(problemLines(res.status, parsed as Problem, res.headers.get("retry-after")));
    }
    const snippet = text.replace(/\s+/g, " ").trim().slice(0, 200);
    throw new CliError([
      `error http_${res.status}: ${res.statusText || "request failed"}${snippet ? ` — ${snippet}` : ""}`,
    ]);
  }
  if (parsed === undefined) {
    throw new CliError([
      `error bad_response: ${method} ${path} at ${client.url} did not answer JSON — is this a Chips server?`,
    ]);
  }
  return parsed as T;
}

/** A GET whose answer is text (an NDJSON export); an error answer becomes a CliError like `call`'s. */
export async function getText(client: Client, path: string): Promise<string> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(client.url + path, { headers: { authorization: `Bearer ${client.token}` } });
    text = await res.text();
  } catch (err) {
    throw unreachable(client.url, err);
  }
  if (res.ok) return text;
  let problem: Problem = {};
  try {
    problem = JSON.parse(text) as Problem;
  } catch {
    // not a problem+json: the status says it
  }
  throw new CliError(problemLines(res.status, problem, res.headers.get("retry-after")));
}
