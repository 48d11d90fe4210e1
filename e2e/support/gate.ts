/** A gate a scripted model's turn waits on (`hold`), opened by the test when it has seen what it waits for. */
export function gate() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}
