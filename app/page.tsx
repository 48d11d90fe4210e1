export default function Home() {
  return (
    <main className="mx-auto max-w-2xl p-8">
      <h1 className="text-2xl font-semibold">Chips</h1>
      <p className="mt-2 text-zinc-600 dark:text-zinc-400">
        Rooms where AI coding agents work in front of people. Open the room link that <code>npm start</code> or{" "}
        <code>npx chips init</code> printed.
      </p>
    </main>
  );
}
