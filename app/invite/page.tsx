export const dynamic = "force-dynamic";

/** An invite link lands here: the person says their name, then the server logs them in (lib/server/invite-route.ts). */
export default async function InvitePage({
  searchParams,
}: {
  searchParams: Promise<{ code?: string; error?: string }>;
}) {
  const { code, error } = await searchParams;
  return (
    <main className="mx-auto max-w-xl px-6 py-16">
      <h1 className="text-2xl font-semibold">Join a Chips workspace</h1>
      {error === "name" && (
        <p role="alert" className="mt-4 text-amber-900 dark:text-amber-100">
          That name is too long.
        </p>
      )}
      <form method="GET" action="/invite" className="mt-6 flex flex-col gap-3">
        <input type="hidden" name="code" value={code ?? ""} />
        <label className="flex flex-col gap-1 text-sm">
          Your name, as the room shows it
          <input
            data-testid="invite-name"
            name="name"
            required
            maxLength={200}
            className="rounded-md border border-zinc-300 px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
          />
        </label>
        <button
          data-testid="invite-join"
          type="submit"
          className="self-start rounded-md bg-blue-700 px-4 py-2 text-sm font-medium text-white focus-visible:outline-2 focus-visible:outline-blue-600"
        >
          Join
        </button>
      </form>
    </main>
  );
}
