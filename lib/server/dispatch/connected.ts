import type { OnlineRunner } from "@/lib/core/routes/runs";
import type { RunnerHello } from "@/lib/core/protocol/runner-contract";
import type { ChipsSocket } from "../realtime/wire";

export interface ConnectedRunner {
  socket: ChipsSocket;
  runnerId: string;
  workspaceId: string;
  hello: RunnerHello;
}

/**
 * The runners connected to this node, by socket: the dispatcher adds and removes them as
 * their /harness sockets say hello and leave, hands them runs, and the API lists them (the
 * start form). Built with the other services, so neither reaches into the other.
 */
export class ConnectedRunners {
  private bySocket = new Map<string, ConnectedRunner>();

  add(r: ConnectedRunner) {
    this.bySocket.set(r.socket.id, r);
  }

  remove(socketId: string) {
    this.bySocket.delete(socketId);
  }

  /** A workspace's runners, each socket. */
  of(workspaceId: string): ConnectedRunner[] {
    return [...this.bySocket.values()].filter((r) => r.workspaceId === workspaceId);
  }

  /** A workspace's runners, each once (one may hold several sockets): what the start form offers. */
  list(workspaceId: string): OnlineRunner[] {
    const byId = new Map<string, RunnerHello & { runner_id: string }>();
    for (const r of this.of(workspaceId)) byId.set(r.runnerId, { runner_id: r.runnerId, ...r.hello });
    return [...byId.values()].map(({ runner_id, name, adapters, repositories, capacity }) => ({
      runner_id,
      name,
      adapters,
      repositories,
      capacity,
    }));
  }

  workspaces(): string[] {
    return [...new Set([...this.bySocket.values()].map((r) => r.workspaceId))];
  }
}
