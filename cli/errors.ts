/** Exit codes: 1 the server refused (or the input was bad), 2 usage / cannot reach the server. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** An error the CLI reports on stderr (each line as is) and exits with. */
export class CliError extends Error {
  constructor(
    readonly lines: string[],
    readonly exitCode: number = EXIT.failed,
  ) {
    super(lines.join("\n"));
  }
}

/** A mistake in how the command was called: the message, a hint to `chips help`, exit 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super([`usage error: ${message}`, `run "chips help" for usage`], EXIT.usage);
  }
}
