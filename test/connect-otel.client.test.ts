import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { newWorkspace, type Workspace } from "./support/api";
import { chipsCli } from "./support/chips-cli";
import { startTestServer, type TestServer } from "./support/server";

/**
 * `chips connect claude --otel` ([OTL9]): the env block that connects a Claude Code by its own
 * telemetry — printed for a shell, or put into the settings' `env` beside what is there and
 * taken out again byte for byte by `chips disconnect claude --otel`.
 */
let server: TestServer;
let ws: Workspace;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-connect-otel-"));

const chips = (args: string[]) =>
  chipsCli(args, { url: server.url, token: ws.token, cwd: dir, env: { CHIPS_HOME: path.join(dir, "home") } });

beforeAll(async () => {
  server = await startTestServer();
  ws = await newWorkspace(server);
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const block = () => ({
  CLAUDE_CODE_ENABLE_TELEMETRY: "1",
  OTEL_LOGS_EXPORTER: "otlp",
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
  OTEL_EXPORTER_OTLP_ENDPOINT: server.url,
  OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer ${ws.token}`,
  OTEL_LOG_TOOL_DETAILS: "1",
  OTEL_LOGS_EXPORT_INTERVAL: "2000",
  OTEL_RESOURCE_ATTRIBUTES: `chips.space.id=${ws.space_id}`,
});

it("[OTL9] --print: the env block as export lines for a shell", async () => {
  const r = await chips(["connect", "claude", "--otel", "--print"]);
  expect(r.code, r.out).toBe(0);
  const lines = Object.entries(block()).map(([k, v]) => `export ${k}='${v}'`);
  expect(r.out.trim().split("\n")).toEqual(lines);
});

it("[OTL9] into the settings' env beside what is there, then out again byte for byte", async () => {
  const settings = path.join(dir, "settings.json");
  const before = '{\n    "model": "opus",\n    "env": { "FOO": "bar", "OTEL_LOGS_EXPORTER": "console" }\n}\n';
  fs.writeFileSync(settings, before);
  const r = await chips(["connect", "claude", "--otel", "--settings", settings]);
  expect(r.code, r.out).toBe(0);
  const written = JSON.parse(fs.readFileSync(settings, "utf8"));
  expect(written).toEqual({ model: "opus", env: { FOO: "bar", ...block() } });
  expect(fs.existsSync(path.join(dir, ".claude"))).toBe(false); // no hooks anywhere
  const undo = await chips(["disconnect", "claude", "--otel", "--settings", settings]);
  expect(undo.code, undo.out).toBe(0);
  expect(fs.readFileSync(settings, "utf8")).toBe(before);

  // Edited since: only Chips' variables go (one it replaced is not brought back).
  await chips(["connect", "claude", "--otel", "--settings", settings]);
  const edited = JSON.parse(fs.readFileSync(settings, "utf8"));
  fs.writeFileSync(settings, JSON.stringify({ ...edited, theme: "dark" }));
  const again = await chips(["disconnect", "claude", "--otel", "--settings", settings]);
  expect(again.out).toMatch(/only Chips' variables were taken out/);
  expect(JSON.parse(fs.readFileSync(settings, "utf8"))).toEqual({ model: "opus", env: { FOO: "bar" }, theme: "dark" });
});
