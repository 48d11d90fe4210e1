"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Role } from "@/lib/core/protocol";
import type { HarnessRow, InviteRow, PersonRow, TokenRow } from "@/lib/core/views/people";
import * as api from "@/lib/browser/people-api";

const button =
  "rounded-md border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-zinc-700 dark:hover:bg-zinc-800";
const heading = "mt-8 text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400";
const muted = "text-xs text-zinc-600 dark:text-zinc-400";

const when = (t: string | null) => (t ? new Date(t).toLocaleString() : "never");

/** A subject's tokens, each with its last use and (for an owner) its own Revoke. */
function Tokens({ tokens, onRevoke }: { tokens: TokenRow[]; onRevoke: (id: string) => void }) {
  if (!tokens.length) return null;
  return (
    <ul className="mt-1 w-full space-y-1 pl-4">
      {tokens.map((t) => (
        <li
          key={t.id}
          data-testid="token"
          data-token-id={t.id}
          data-revoked={t.revoked}
          className={`flex items-center gap-2 ${muted}`}
        >
          <span className="font-mono">{t.id.slice(0, 12)}…</span>
          <span>{t.revoked ? "revoked" : `last used ${when(t.last_used_at)}`}</span>
          {!t.revoked && (
            <button
              type="button"
              data-testid="token-revoke"
              className={`ml-auto ${button}`}
              onClick={() => onRevoke(t.id)}
            >
              Revoke token
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

/** People, invites, harnesses and runners of a workspace; an owner invites, re-roles and revokes (docs/ROLES.md). */
export function PeoplePanel(p: {
  workspaceId: string;
  myId: string;
  people: PersonRow[];
  harnesses: HarnessRow[];
  invites: InviteRow[];
  isOwner: boolean;
}) {
  const router = useRouter();
  const [role, setRole] = useState<Role>("member");
  const [link, setLink] = useState<string | null>(null);
  const [minted, setMinted] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ws = p.workspaceId;
  /** Run a change; on success redraw the page from the server, else say why. */
  const act = async (change: Promise<string | null>) => {
    const refused = await change;
    setError(refused);
    if (!refused) router.refresh();
  };
  const revokeToken = (id: string) => void act(api.revokeToken(ws, id));
  return (
    <section className="mt-8" aria-labelledby="people-h">
      <h2 id="people-h" className={heading.replace("mt-8 ", "")}>
        People
      </h2>
      {error && (
        <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
      <ul className="mt-2 divide-y divide-zinc-200 dark:divide-zinc-800">
        {p.people.map((x) => (
          <li
            key={x.id}
            data-testid="person"
            data-person-id={x.id}
            data-role={x.role}
            className="flex flex-wrap items-center gap-2 py-2 text-sm"
          >
            <span className="font-medium">{x.name}</span>
            {p.isOwner ? (
              <select
                aria-label={`Role of ${x.name}`}
                data-testid="person-role"
                value={x.role}
                onChange={(e) => {
                  const to = Role.safeParse(e.target.value);
                  if (to.success) void act(api.changeRole(ws, x.id, to.data));
                }}
                className="rounded-md border border-zinc-300 px-1 py-0.5 text-xs dark:border-zinc-700 dark:bg-zinc-900"
              >
                <option value="viewer">viewer</option>
                <option value="member">member</option>
                <option value="owner">owner</option>
              </select>
            ) : (
              <span className={muted}>{x.role}</span>
            )}
            {p.isOwner && <span className={muted}>last seen {when(x.last_seen_at)}</span>}
            {p.isOwner && x.id !== p.myId && (
              <button
                type="button"
                data-testid="person-revoke"
                className={`ml-auto ${button}`}
                onClick={() => void act(api.revokePerson(ws, x.id))}
              >
                Revoke
              </button>
            )}
            {p.isOwner && <Tokens tokens={x.tokens} onRevoke={revokeToken} />}
          </li>
        ))}
      </ul>
      {p.isOwner && (
        <form
          className="mt-3 flex flex-wrap items-center gap-2"
          onSubmit={async (e) => {
            e.preventDefault();
            const made = await api.makeInvite(ws, role);
            if ("error" in made) return setError(made.error);
            setLink(made.url);
            router.refresh();
          }}
        >
          <label className="text-sm" htmlFor="invite-role">
            Invite a
          </label>
          <select
            id="invite-role"
            data-testid="invite-role"
            value={role}
            onChange={(e) => setRole(Role.safeParse(e.target.value).data ?? "member")}
            className="rounded-md border border-zinc-300 px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900"
          >
            <option value="viewer">viewer (watches and reviews)</option>
            <option value="member">member (posts, starts and steers runs)</option>
            <option value="owner">owner (manages people, harnesses, runners)</option>
          </select>
          <button
            type="submit"
            data-testid="invite-create"
            className="rounded-md bg-blue-700 px-3 py-1 text-sm font-medium text-white focus-visible:outline-2 focus-visible:outline-blue-600"
          >
            Make a link
          </button>
          {link && (
            <output
              data-testid="invite-link"
              className="w-full break-all rounded-md bg-zinc-100 p-2 font-mono text-xs dark:bg-zinc-900"
            >
              {link}
            </output>
          )}
        </form>
      )}
      {p.isOwner && p.invites.length > 0 && (
        <>
          <h2 className={heading}>Open invites</h2>
          <ul className="mt-2 divide-y divide-zinc-200 dark:divide-zinc-800">
            {p.invites.map((i) => (
              <li
                key={i.id}
                data-testid="invite"
                data-invite-id={i.id}
                className="flex items-center gap-2 py-2 text-sm"
              >
                <span>{i.role}</span>
                <span className={muted}>
                  {i.single_use ? "single-use" : `${i.uses} uses so far`} · until {when(i.expires_at)}
                </span>
                <button
                  type="button"
                  data-testid="invite-withdraw"
                  className={`ml-auto ${button}`}
                  onClick={() => void act(api.withdrawInvite(ws, i.id))}
                >
                  Withdraw
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {p.isOwner && (
        <>
          <h2 className={heading}>Harnesses and runners</h2>
          {minted && (
            <output
              data-testid="token-minted"
              className="mt-2 block break-all rounded-md bg-zinc-100 p-2 font-mono text-xs dark:bg-zinc-900"
            >
              New token (shown once): {minted}
            </output>
          )}
          <ul className="mt-2 divide-y divide-zinc-200 dark:divide-zinc-800">
            {p.harnesses.map((h) => {
              const live = h.tokens.filter((t) => !t.revoked).length;
              return (
                <li
                  key={h.id}
                  data-testid="harness"
                  data-harness-id={h.id}
                  className="flex flex-wrap items-center gap-2 py-2 text-sm"
                >
                  <span className="font-medium">{h.name}</span>
                  <span className={muted}>
                    {h.kind} · {live ? `${live} live token${live === 1 ? "" : "s"}` : "revoked"}
                  </span>
                  <button
                    type="button"
                    data-testid="harness-new-token"
                    className={`ml-auto ${button}`}
                    onClick={async () => {
                      const made = await api.newHarnessToken(ws, h.id);
                      if ("error" in made) return setError(made.error);
                      setMinted(made.token);
                      router.refresh();
                    }}
                  >
                    New token
                  </button>
                  {live > 0 && (
                    <button
                      type="button"
                      data-testid="harness-revoke"
                      className={button}
                      onClick={() => void act(api.revokeHarness(ws, h.id))}
                    >
                      Revoke all
                    </button>
                  )}
                  <Tokens tokens={h.tokens} onRevoke={revokeToken} />
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
