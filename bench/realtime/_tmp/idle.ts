import { spawnNode, rmrf, sleep } from "../proc";
const srv = await spawnNode({ script: "server.ts" });
await sleep(3000);
const c0 = srv.cpuMs(); await sleep(5000); const c1 = srv.cpuMs();
console.log("idle server CPU %", ((c1 - c0) / 5000 * 100).toFixed(1));
await srv.stop(); rmrf(srv.dataDir);
