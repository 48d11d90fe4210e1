import type { GlobalOptions } from "../config";
import type { Output } from "../output";

/** Every option the CLI knows, as util.parseArgs hands them over. */
export interface Options extends GlobalOptions {
  help?: boolean;
  json?: boolean;
  workspace?: string;
  space?: string;
  harness?: string;
  owner?: string;
  after?: string;
  limit?: string;
}

/** What a command runs with: its options and arguments, the environment, where to write. */
export interface CommandContext {
  opts: Options;
  args: string[];
  env: Record<string, string | undefined>;
  io: Output;
  /** Standard input, read to the end (for `chips post -`). */
  stdin(): Promise<string>;
}
