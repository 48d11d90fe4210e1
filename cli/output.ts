/** Where the commands write: stdout for results only, stderr for everything else. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export const stdio: Output = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/** Values as JSON lines (one chunk, so a page of events is one write). */
export function jsonLines(values: unknown[]): string {
  let s = "";
  for (const v of values) s += JSON.stringify(v) + "\n";
  return s;
}
