import { UsageError, CliError } from "../errors";
import { harnessAndRoom } from "./connect-room";
import type { CommandContext, Options } from "./context";

/** `chips bridge ag-ui URL --prompt "…" [--space S]`: run an AG-UI agent on the prompt, shown in a room. */
export async function bridge(ctx: CommandContext): Promise<void> {
  const [kind, url, ...rest] = ctx.args;
  if (kind !== "ag-ui") throw new UsageError(`bridge takes ag-ui (got "${kind ?? ""}")`);
  if (!url || rest.length) throw new UsageError("bridge ag-ui takes the agent's URL");
  const prompt = (ctx.opts as Options & { prompt?: string }).prompt;
  if (!prompt) throw new UsageError('bridge ag-ui needs --prompt "what to ask the agent"');
  const { url: chipsUrl, token, space } = await harnessAndRoom(ctx);
  const { HttpAgent } = await import("@ag-ui/client");
  const { ChipsClient } = await import("../../lib/agents/sdk");
  const { bridgeAgUi } = await import("../../lib/agents/bridge/ag-ui");
  const client = new ChipsClient({ url: chipsUrl, token });
  const agent = new HttpAgent({ url });
  try {
    const r = await bridgeAgUi({ client, agent, spaceId: space.id, prompt, log: (l) => ctx.io.err(`${l}\n`) });
    ctx.io.out(`${r.runId} ${r.outcome} in room "${space.name}"\n`);
    if (r.outcome === "failed") throw new CliError([`error: the agent's run failed`]);
  } finally {
    client.close();
  }
}
