/** Types of scripts/pg-cluster.mjs for the TypeScript tests that start their own cluster. */
export interface Cluster {
  url: string;
  dir: string;
  port: number;
  /** Stop the server, keeping its data (an outage). */
  halt(): Promise<void>;
  /** Start it again on the same port. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}
export function findPgBin(): string | null;
export function startCluster(opts?: { port?: number; quiet?: boolean }): Promise<Cluster>;
