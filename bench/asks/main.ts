/**
 * `npm run bench -- --only asks [--rounds N] [--think MS] [--quiet-wait S]`
 *
 * The answer → resume wait of "needs you" (docs/PERFORMANCE.md, "Asks"): from the moment a
 * person's answer is posted (`POST /api/v1/runs/:run/asks/:ask/answer`, what the card's Allow
 * button sends) to the moment the agent side has it and resumes, on every path an answer
 * really takes — an SDK agent on its `/harness` socket, a runner job (Claude Code's stdio
 * control: RunAsks' long-poll; Codex: the PreToolUse hook on the job's unix socket) and
 * `chips connect claude`'s hook (drainer → ask.mjs). The server (PGlite) has a person's room
 * socket open, as a browser would. Floors from the same rounds, so the figures read as ratios
 * on a noisy machine: a no-op authenticated request (`GET /api/v1/me`), a bare Socket.IO round
 * trip (`history` of one event, acked), waking a child process that waits on a pipe (what a hook
 * pays to be woken), and a person's message from POST to its arrival on the room socket
 * (store + fan-out + push: what any answer pays).
 * Each round takes every path and floor once, in turn. The person answers `--think` ms (default
 * 100) after the ask reached their page, as a person would, not while the agent side is still
 * starting (a hook process just spawned). Aim: p99 ≤ 50 ms per path. Never run in CI.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io, type Socket } from "socket.io-client";
import { newId } from "@/lib/core/protocol";
import { adminToken, createWorkspace, harnessEvent, keepAlive, postBatch, request } from "../lib/api";
import { machineMeter, othersMeter, sleep, waitQuiet } from "../lib/proc";
import { spawnServer } from "../lib/server-child";
import { summarize, type Latency } from "../lib/stats";
import { aimsTable, ms, pct, ratio, table } from "../lib/table";
import { connectHook, runnerDecide, runnerHook, sdkSocket, type AnswerPath } from "./paths";

const AIM_MS = 50;

function parseArgs(argv: string[]) {
  const o = { rounds: 150, think: 100, quietWait: 120 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const val = () => Number(inline ?? argv[++i]);
    if (flag === "--rounds") o.rounds = val();
    else if (flag === "--think") o.think = val();
    else if (flag === "--quiet-wait") o.quietWait = val();
    else if (flag === "--help" || flag === "-h") {
      console.log(fs.readFileSync(import.meta.filename, "utf8").split("*/")[0]);
      process.exit(0);
    } else throw new Error(`unknown flag ${argv[i]} (try --help)`);
  }
  if (!(Number.isInteger(o.rounds) && o.rounds > 0)) throw new Error("--rounds is a whole number > 0");
  return o;
}

type Frame = { type?: string; run_id?: string; ask_id?: string; text?: string; goal?: string };

/** A person's room socket: the asks and messages it is pushed, awaited by condition. */
async function personSocket(url: string, token: string, spaceId: string) {
  const socket: Socket = io(url, { transports: ["websocket"], forceNew: true, reconnection: false, auth: { token } });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  const waiters = new Set<{ test: (f: Frame) => boolean; resolve: (f: Frame) => void }>();
  const seen = (f: Frame) => {
    for (const w of waiters)
      if (w.test(f)) {
        waiters.delete(w);
        w.resolve(f);
      }
  };
  socket.on("events", (frames: Frame[]) => frames.forEach(seen));
  socket.on("ask", seen);
  const ack = (await socket.timeout(30_000).emitWithAck("join", { v: 1, space_id: spaceId, after_seq: 0 })) as {
    ok?: boolean;
    error?: string;
  };
  if (!ack.ok) throw new Error(`join refused: ${ack.error}`);
  return {
    next(test: (f: Frame) => boolean, what: string): Promise<Frame> {
      return new Promise((resolve, reject) => {
        const w = {
          test,
          resolve: (f: Frame) => {
            clearTimeout(timer);
            resolve(f);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`no ${what} within 30 s`));
        }, 30_000);
        waiters.add(w);
      });
    },
    /** One `history` emit and its ack (a page of one event): a Socket.IO round trip with a small read. */
    async roundTrip(): Promise<number> {
      const t0 = performance.now();
      const a = (await socket.timeout(30_000).emitWithAck("history", { space_id: spaceId, limit: 1 })) as {
        error?: string;
      };
      if (a.error) throw new Error(`history: ${a.error}`);
      return performance.now() - t0;
    },
    close: () => socket.close(),
  };
}

/** A child process that echoes each stdin line: waking a process that waits, as a hook waits on its socket. */
function echoChild() {
  const child = spawn(process.execPath, ["-e", 'process.stdin.on("data", (d) => process.stdout.write(d))'], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  return {
    once(): Promise<number> {
      const t0 = performance.now();
      return new Promise((resolve) => {
        child.stdout.once("data", () => resolve(performance.now() - t0));
        child.stdin.write("x\n");
      });
    },
    close: () => child.kill(),
  };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-bench-asks-"));
  const busyBefore = await waitQuiet(o.quietWait);
  const server = await spawnServer({ dataDir: path.join(dir, "data") });
  const agent = keepAlive(8);
  const paths: AnswerPath[] = [];
  let person: Awaited<ReturnType<typeof personSocket>> | null = null;
  const echo = echoChild();
  try {
    const url = server.url;
    const ws = await createWorkspace(agent, url, adminToken(path.join(dir, "data")));
    person = await personSocket(url, ws.person_token, ws.space_id);
    const p = person;
    const runId = newId("run");
    await postBatch(agent, url, ws.token, [
      harnessEvent(ws, "run.started", { space_id: ws.space_id, run_id: runId, goal: "bench: asks" }),
    ]);
    fs.mkdirSync(path.join(dir, "runner"));
    fs.mkdirSync(path.join(dir, "connect"));
    paths.push(
      await sdkSocket(url, ws, runId),
      runnerDecide(url, ws, runId),
      await runnerHook(url, ws, runId, path.join(dir, "runner")),
      await connectHook(url, ws, path.join(dir, "connect"), (goal) =>
        p.next((f) => f.type === "run.started" && f.goal === goal, "the connected session's run"),
      ),
    );

    let key = 0;
    /** One answer on one path: the wait from posting the answer to the agent resuming, and the POST's own time. */
    const answerOnce = async (a: AnswerPath) => {
      const asked = p.next((f) => f.type === "run.asked", `run.asked of ${a.name}`);
      const { resumed } = a.begin();
      const f = await asked;
      await sleep(o.think);
      const t0 = performance.now();
      const r = await request(
        agent,
        `${url}/api/v1/runs/${f.run_id}/asks/${f.ask_id}/answer`,
        "POST",
        ws.person_token,
        {
          decision: "allow",
          idempotency_key: `bench-asks-${process.pid}-${++key}`,
        },
      );
      const posted = performance.now();
      if (r.status !== 201) throw new Error(`answer: ${r.status} ${r.body}`);
      const t1 = await resumed;
      const handed = a.handedOver?.at(-1);
      return { wait: t1 - t0, post: posted - t0, wake: handed !== undefined ? t1 - handed : undefined };
    };
    const me = async () => {
      const t0 = performance.now();
      const r = await request(agent, `${url}/api/v1/me`, "GET", ws.person_token);
      if (r.status !== 200) throw new Error(`me: ${r.status}`);
      return performance.now() - t0;
    };
    const push = async () => {
      const text = `bench floor ${++key}`;
      const arrived = p.next((f) => f.type === "message.posted" && f.text === text, "the floor message");
      const t0 = performance.now();
      const r = await request(agent, `${url}/api/v1/events`, "POST", ws.person_token, {
        events: [
          {
            v: 1,
            type: "message.posted",
            id: newId("event"),
            workspace_id: ws.workspace_id,
            space_id: ws.space_id,
            idempotency_key: `bench-asks-${process.pid}-${key}`,
            text,
          },
        ],
      });
      if (r.status !== 201) throw new Error(`message: ${r.status} ${r.body}`);
      await arrived;
      return performance.now() - t0;
    };

    // Warm-up: the first of each is paid once (JIT, connections), not per answer.
    for (const a of paths) await answerOnce(a);
    await me();
    await push();
    await p.roundTrip();
    await echo.once();

    const waits = new Map<string, number[]>(paths.map((a) => [a.name, []]));
    const wakes = new Map<string, number[]>(paths.map((a) => [a.name, []]));
    const posts: number[] = [];
    const floors = { me: [] as number[], push: [] as number[], socket: [] as number[], wake: [] as number[] };
    const machine = machineMeter();
    const others = othersMeter();
    for (let i = 0; i < o.rounds; i++) {
      floors.me.push(await me());
      floors.push.push(await push());
      floors.socket.push(await p.roundTrip());
      floors.wake.push(await echo.once());
      for (const a of paths) {
        const s = await answerOnce(a);
        waits.get(a.name)!.push(s.wait);
        if (s.wake !== undefined) wakes.get(a.name)!.push(s.wake);
        posts.push(s.post);
      }
    }
    const load = machine.stop();
    const top = others
      .stop([process.pid])
      .slice(0, 3)
      .map((x) => `${x.comm} ${pct(x.pct)}`)
      .join(", ");

    const sum = (xs: number[]): Latency => summarize(xs);
    const push99 = sum(floors.push).p99;
    const rows: (string | number)[][] = [
      ["floor: GET /api/v1/me", ...cells(sum(floors.me)), "–"],
      ["floor: Socket.IO round trip (history of 1)", ...cells(sum(floors.socket)), "–"],
      ["floor: wake a waiting child (stdin → stdout)", ...cells(sum(floors.wake)), "–"],
      ["floor: message POST → room socket", ...cells(sum(floors.push)), "1×"],
      ["the answer's POST itself (201)", ...cells(sum(posts)), ratio(sum(posts).p99, push99)],
      ...paths.flatMap((a) => {
        const l = sum(waits.get(a.name)!);
        const w = wakes.get(a.name)!;
        const wake = w.length ? [[`  of which: the answer handed over → printed`, ...cells(sum(w)), "–"]] : [];
        return [[a.name, ...cells(l), ratio(l.p99, push99)], ...wake];
      }),
    ];
    console.log(
      `\nasks: answer → resume, ${o.rounds} rounds, answered ${o.think} ms after the ask (PGlite; a person's room socket open)`,
    );
    console.log(table(["path", "n", "p50 ms", "p99 ms", "max ms", "p99 / push floor"], rows));
    for (const a of paths) console.log(`  ${a.name}: ${a.what}`);
    console.log(
      `machine: ${pct(busyBefore)} of one core busy before, ${pct(load.busy)} during (load1 ${load.load1.toFixed(2)}; others: ${top || "none"})`,
    );
    console.log(
      "\n" +
        aimsTable(
          paths.map((a) => {
            const l = sum(waits.get(a.name)!);
            return {
              what: `${a.name}: answer → resume p99`,
              aim: `≤ ${AIM_MS} ms`,
              got: `${ms(l.p99)} ms`,
              met: l.p99 <= AIM_MS,
            };
          }),
        ),
    );
  } finally {
    for (const a of paths) await a.close().catch((e) => console.error(`close ${a.name}: ${(e as Error).message}`));
    person?.close();
    echo.close();
    agent.destroy();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const cells = (l: Latency) => [l.n, ms(l.p50), ms(l.p99), ms(l.max)];

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
