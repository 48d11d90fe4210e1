import postgres from "postgres";
import { startPg } from "../pg";
import { spawnNode, rmrf } from "../proc";
import { keepAlive, createWorkspace, adminToken, seedMessages } from "../api";
const pg = await startPg();
const url = await pg.createDb("explain");
const srv = await spawnNode({ script: "server.ts", env: { DATABASE_URL: url } });
const agent = keepAlive(8);
// two workspaces, so the table is not one workspace only
for (let k = 0; k < 2; k++) {
  const ws = await createWorkspace(agent, srv.url, adminToken(srv.dataDir));
  await seedMessages(agent, srv.url, ws, 10000);
  if (k === 1) {
    const sql = postgres(url, { max: 1 });
    await sql`analyze`;
    for (const q of [
      `explain analyze select body, prev_seq from events where space_id = '${ws.space_id}' order by seq desc limit 1000`,
      `explain analyze select body, prev_seq from events where space_id = '${ws.space_id}' and seq < 15000 order by seq desc limit 1000`,
      `explain analyze select body, prev_seq from events where space_id = '${ws.space_id}' and seq > 10 order by seq asc limit 1001`,
      `explain analyze select body, prev_seq from events where workspace_id='${ws.workspace_id}' and space_id = '${ws.space_id}' and seq < 15000 order by seq desc limit 1000`,
    ]) {
      console.log(q.slice(0, 140));
      for (const r of await sql.unsafe(q)) console.log("  ", r["QUERY PLAN"]);
    }
    await sql.end();
  }
}
agent.destroy(); await srv.stop(); rmrf(srv.dataDir); await pg.stop();
