const MESSAGES: Record<string, string> = {
  link_used: "That login link was already used (each link works once) or has expired.",
  invite_used: "That invite was already used, has expired, or was withdrawn. Ask for a new one.",
  other_workspace: "You are logged in to another workspace. Open a link for this one.",
};

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ error?: string }> }) {
  const { error } = await searchParams;
  return (
    <main className="mx-auto max-w-xl px-6 py-16">
      <h1 className="text-2xl font-semibold">Log in to Chips</h1>
      {error && MESSAGES[error] && (
        <p
          role="alert"
          className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-3 text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
        >
          {MESSAGES[error]}
        </p>
      )}
      <p className="mt-4 text-zinc-700 dark:text-zinc-300">
        Chips signs you in with a one-time link. Open the room link that{" "}
        <code className="rounded bg-zinc-100 px-1 dark:bg-zinc-800">npm start</code> printed, or get a fresh one on the
        machine that runs Chips:
      </p>
      <pre className="mt-4 overflow-x-auto rounded-md bg-zinc-100 p-3 text-sm dark:bg-zinc-900">
        npx chips login{"\n"}npx chips login --workspace ws_…
      </pre>
      <p className="mt-4 text-sm text-zinc-600 dark:text-zinc-400">
        A link works once: give each browser, or each person, a link of its own.
      </p>
    </main>
  );
}
