"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Role } from "@/lib/core/protocol";
import type { HarnessRow, InviteRow, PersonRow, TokenRow } from "@/lib/core/views/people";
import * as api from "@/lib/browser/people-api";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, Select } from "../ui/field";
import { Form } from "../ui/form";
import { useAction } from "../ui/use-action";
import { heading, muted } from "./panel-style";

const ROLES = ["viewer", "member", "owner"] as const;
const INVITE_ROLES = [
  ["viewer", "viewer (watches and reviews)"],
  ["member", "member (posts, starts and steers runs)"],
  ["owner", "owner (manages people, harnesses, runners)"],
] as const;

const when = (t: string | null) => (t ? new Date(t).toLocaleString() : "never");

/** A row's own action at its end (Revoke, Withdraw): not pressed again while the panel's last one is in flight. */
function RowAction({
  testId,
  busy,
  onClick,
  children,
}: {
  testId: string;
  busy: boolean;
  onClick: () => unknown;
  children: string;
}) {
  return (
    <Button size="xs" data-testid={testId} className="ml-auto" disabled={busy} onClick={onClick}>
      {children}
    </Button>
  );
}

/** A subject's tokens, each with its last use and (for an owner) its own Revoke. */
function Tokens({ tokens, onRevoke }: { tokens: TokenRow[]; onRevoke: (id: string) => unknown }) {
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
            <Button size="xs" data-testid="token-revoke" className="ml-auto" onClick={() => onRevoke(t.id)}>
              Revoke token
            </Button>
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
  const ws = p.workspaceId;
  // A change redraws the page from the server; a refusal is said above the list.
  const act = useAction((change: () => Promise<unknown>) => change(), { onDone: () => router.refresh() });
  const invite = useAction((r: Role) => api.makeInvite(ws, r), {
    fields: ["role"],
    onDone: (url) => {
      setLink(url);
      router.refresh();
    },
  });
  const mint = useAction((id: string) => api.newHarnessToken(ws, id), {
    onDone: (token) => {
      setMinted(token);
      router.refresh();
    },
  });
  const revokeToken = (id: string) => act.run(() => api.revokeToken(ws, id));
  return (
    <section className="mt-8" aria-labelledby="people-h">
      <h2 id="people-h" className={heading.replace("mt-8 ", "")}>
        People
      </h2>
      <Alert className="mt-2 text-sm">{act.error ?? mint.error}</Alert>
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
              <Select
                aria-label={`Role of ${x.name}`}
                data-testid="person-role"
                value={x.role}
                disabled={act.busy}
                onChange={(e) => {
                  const to = Role.safeParse(e.target.value);
                  if (to.success) void act.run(() => api.changeRole(ws, x.id, to.data));
                }}
                compact
                options={ROLES.map((r) => [r, r])}
              />
            ) : (
              <span className={muted}>{x.role}</span>
            )}
            {p.isOwner && <span className={muted}>last seen {when(x.last_seen_at)}</span>}
            {p.isOwner && x.id !== p.myId && (
              <RowAction
                testId="person-revoke"
                busy={act.busy}
                onClick={() => act.run(() => api.revokePerson(ws, x.id))}
              >
                Revoke
              </RowAction>
            )}
            {p.isOwner && <Tokens tokens={x.tokens} onRevoke={revokeToken} />}
          </li>
        ))}
      </ul>
      {p.isOwner && (
        <Form action={invite} className="mt-3 flex flex-wrap items-end gap-2" onSubmit={() => invite.run(role)}>
          <Field label="Invite a" compact error={invite.fields.role} name="role">
            <Select
              data-testid="invite-role"
              value={role}
              onChange={(e) => setRole(Role.safeParse(e.target.value).data ?? "member")}
              options={INVITE_ROLES}
            />
          </Field>
          <Button type="submit" tone="primary" data-testid="invite-create" busy={invite.busy}>
            Make a link
          </Button>
          <Alert className="w-full text-sm">{invite.error}</Alert>
          {link && (
            <output
              data-testid="invite-link"
              className="w-full break-all rounded-md bg-zinc-100 p-2 font-mono text-xs dark:bg-zinc-900"
            >
              {link}
            </output>
          )}
        </Form>
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
                <RowAction
                  testId="invite-withdraw"
                  busy={act.busy}
                  onClick={() => act.run(() => api.withdrawInvite(ws, i.id))}
                >
                  Withdraw
                </RowAction>
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
                  <Button
                    size="xs"
                    data-testid="harness-new-token"
                    className="ml-auto"
                    busy={mint.busy}
                    onClick={() => mint.run(h.id)}
                  >
                    New token
                  </Button>
                  {live > 0 && (
                    <Button
                      size="xs"
                      data-testid="harness-revoke"
                      disabled={act.busy}
                      onClick={() => act.run(() => api.revokeHarness(ws, h.id))}
                    >
                      Revoke all
                    </Button>
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
