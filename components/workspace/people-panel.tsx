"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

export interface PersonRow {
  id: string;
  name: string;
  role: string;
}
export interface HarnessRow {
  id: string;
  name: string;
  kind: string;
  tokens: number;
  revoked: boolean;
}

async function problemOf(res: Response | null) {
  if (!res) return "Could not reach Chips.";
  return ((await res.json().catch(() => null)) as { detail?: string } | null)?.detail ?? `Refused (${res.status}).`;
}

/** People, harnesses and runners of a workspace; an owner invites by link and revokes (issue 15). */
export function PeoplePanel({ workspaceId, people, harnesses, isOwner }: { workspaceId: string; people: PersonRow[]; harnesses: HarnessRow[]; isOwner: boolean }) {
  const router = useRouter();
  const [role, setRole] = useState("member");
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const revoke = async (what: "people" | "harnesses", id: string) => {
    const res = await fetch(`/api/v1/workspaces/${workspaceId}/${what}/${id}`, { method: "DELETE" }).catch(() => null);
    if (!res?.ok) return setError(await problemOf(res));
    router.refresh();
  };
  const button = "rounded-md border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-zinc-700 dark:hover:bg-zinc-800";
  return (
    <section className="mt-8" aria-labelledby="people-h">
      <h2 id="people-h" className="text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400">
        People
      </h2>
      {error && (
        <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
      <ul className="mt-2 divide-y divide-zinc-200 dark:divide-zinc-800">
        {people.map((p) => (
          <li key={p.id} data-testid="person" data-person-id={p.id} data-role={p.role} className="flex items-center gap-2 py-2 text-sm">
            <span className="font-medium">{p.name}</span>
            <span className="text-xs text-zinc-600 dark:text-zinc-400">{p.role}</span>
            {isOwner && (
              <button type="button" data-testid="person-revoke" className={`ml-auto ${button}`} onClick={() => void revoke("people", p.id)}>
                Revoke
              </button>
            )}
          </li>
        ))}
      </ul>
      {isOwner && (
        <form
          className="mt-3 flex flex-wrap items-center gap-2"
          onSubmit={async (e) => {
            e.preventDefault();
            const res = await fetch(`/api/v1/workspaces/${workspaceId}/invites`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ role }),
            }).catch(() => null);
            if (!res?.ok) return setError(await problemOf(res));
            setLink(((await res.json()) as { url: string }).url);
          }}
        >
          <label className="text-sm" htmlFor="invite-role">
            Invite a
          </label>
          <select id="invite-role" data-testid="invite-role" value={role} onChange={(e) => setRole(e.target.value)} className="rounded-md border border-zinc-300 px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900">
            <option value="viewer">viewer (watches and reviews)</option>
            <option value="member">member (posts, starts and steers runs)</option>
            <option value="owner">owner (manages people, harnesses, runners)</option>
          </select>
          <button type="submit" data-testid="invite-create" className="rounded-md bg-blue-700 px-3 py-1 text-sm font-medium text-white focus-visible:outline-2 focus-visible:outline-blue-600">
            Make a link
          </button>
          {link && (
            <output data-testid="invite-link" className="w-full break-all rounded-md bg-zinc-100 p-2 font-mono text-xs dark:bg-zinc-900">
              {link}
            </output>
          )}
        </form>
      )}
      {isOwner && (
        <>
          <h2 className="mt-8 text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400">Harnesses and runners</h2>
          <ul className="mt-2 divide-y divide-zinc-200 dark:divide-zinc-800">
            {harnesses.map((h) => (
              <li key={h.id} data-testid="harness" data-harness-id={h.id} className="flex items-center gap-2 py-2 text-sm">
                <span className="font-medium">{h.name}</span>
                <span className="text-xs text-zinc-600 dark:text-zinc-400">
                  {h.kind} · {h.revoked ? "revoked" : `${h.tokens} token${h.tokens === 1 ? "" : "s"}`}
                </span>
                {!h.revoked && (
                  <button type="button" data-testid="harness-revoke" className={`ml-auto ${button}`} onClick={() => void revoke("harnesses", h.id)}>
                    Revoke
                  </button>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
