import http from "node:http";

export interface Reply {
  status: number;
  text: string;
}

/**
 * A loopback HTTP client on a keep-alive agent: node:http rather than fetch, because the
 * load generator shares the machine's 2 cores with the server and the database, and
 * node:http costs less CPU per request than undici's fetch.
 */
export class Client {
  readonly agent: http.Agent;
  private base: URL;

  constructor(baseUrl: string, maxSockets: number) {
    this.base = new URL(baseUrl);
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  request(method: "GET" | "POST", path: string, token: string, body?: string): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${token}` };
      if (body !== undefined) {
        headers["content-type"] = "application/json";
        headers["content-length"] = Buffer.byteLength(body);
      }
      const req = http.request(
        { agent: this.agent, host: this.base.hostname, port: this.base.port, path, method, headers, timeout: 30_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", reject);
        },
      );
      req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out after 30 s`)));
      req.on("error", reject);
      req.end(body);
    });
  }

  async json(method: "GET" | "POST", path: string, token: string, body?: unknown, expect = [200, 201]): Promise<any> {
    const r = await this.request(method, path, token, body === undefined ? undefined : JSON.stringify(body));
    if (!expect.includes(r.status)) throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 500)}`);
    return JSON.parse(r.text);
  }

  close() {
    this.agent.destroy();
  }
}
