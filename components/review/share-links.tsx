"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import type { ShareLink } from "@/lib/core/protocol";
import { createShare, revokeShare } from "@/lib/browser/review-api";
import type { Directory } from "@/lib/core/views/names";
import { Button } from "../ui/button";
import { Field, Input, Select } from "../ui/field";
import { Alert } from "../ui/alert";
import { Form } from "../ui/form";
import { useAction } from "../ui/use-action";
import { muted, when } from "./format";

const LIFETIMES = [
  [String(3600), "1 hour"],
  [String(86_400), "1 day"],
  [String(7 * 86_400), "1 week"],
  [String(30 * 86_400), "30 days"],
] as const;

const stateOf = (s: ShareLink, now: number) =>
  s.revoked_at ? "revoked" : Date.parse(s.expires_at) <= now ? "expired" : "live";

/**
 * A run's share links ([SHR1]): members and owners make one (a lifetime, optionally a seq
 * range) and see its URL once; everyone sees every link and each open (when, from where);
 * the person who made a link or an owner revokes it.
 */
export function ShareLinks({
  ws,
  runId,
  shares,
  dir,
  canShare,
  me,
  isOwner,
  drawnAt,
}: {
  ws: string;
  runId: string;
  shares: ShareLink[];
  dir: Directory;
  canShare: boolean;
  me: string;
  isOwner: boolean;
  drawnAt: string;
}) {
  const router = useRouter();
  const [seconds, setSeconds] = useState(String(7 * 86_400));
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [made, setMade] = useState<string | null>(null);
  const share = useAction((body: Parameters<typeof createShare>[1]) => createShare(runId, body), {
    fields: ["expires_in_seconds", "from_seq", "to_seq"],
    onDone: (r) => {
      setMade(r.url);
      router.refresh();
    },
  });
  const revoke = useAction((id: string) => revokeShare(ws, id), { onDone: () => router.refresh() });
  // The server's clock when the page was drawn, so the browser draws the same state words.
  const now = Date.parse(drawnAt);
  return (
    <div>
      {shares.length === 0 ? (
        <p className={`text-sm ${muted}`}>No share links.</p>
      ) : (
        <ul className="space-y-2 text-sm">
          {shares.map((s) => (
            <li key={s.id} data-testid="share-link" data-share-id={s.id} data-state={stateOf(s, now)}>
              <p>
                <span className="font-medium">{stateOf(s, now)}</span>{" "}
                <span className={muted}>
                  by {dir.persons[s.created_by] ?? "someone"} · made {when(s.created_at)} · until {when(s.expires_at)}
                  {(s.from_seq !== null || s.to_seq !== null) &&
                    ` · seqs ${s.from_seq ?? "start"}–${s.to_seq ?? "end"}`}
                  {s.revoked_at && ` · revoked ${when(s.revoked_at)}`}
                </span>
                {!s.revoked_at && (s.created_by === me || isOwner) && (
                  <Button
                    size="sm"
                    className="ml-2"
                    data-testid="share-revoke"
                    busy={revoke.busy}
                    onClick={() => revoke.run(s.id)}
                  >
                    Revoke
                  </Button>
                )}
              </p>
              <p className={`text-xs ${muted}`} data-testid="share-opens">
                {s.opens.length === 0
                  ? "Not opened yet."
                  : `Opened ${s.opens.length} ${s.opens.length === 1 ? "time" : "times"}:`}
              </p>
              {s.opens.length > 0 && (
                <ol className={`text-xs ${muted}`}>
                  {s.opens.map((o, i) => (
                    <li key={i} data-testid="share-open">
                      {when(o.opened_at)} from {o.address ?? "an unknown address"}
                      {o.user_agent && <span className="break-all"> · {o.user_agent.slice(0, 80)}</span>}
                    </li>
                  ))}
                </ol>
              )}
            </li>
          ))}
        </ul>
      )}
      {canShare && (
        <Form
          action={share}
          className="mt-3 flex flex-wrap items-end gap-2"
          aria-label="Share this run"
          onSubmit={() =>
            share.run({
              expires_in_seconds: Number(seconds),
              ...(from ? { from_seq: Number(from) } : {}),
              ...(to ? { to_seq: Number(to) } : {}),
            })
          }
        >
          <Field label="Good for" compact error={share.fields.expires_in_seconds} name="expires_in_seconds">
            <Select
              value={seconds}
              onChange={(e) => setSeconds(e.target.value)}
              data-testid="share-lifetime"
              options={LIFETIMES}
            />
          </Field>
          <Field label="From seq" note="optional" compact error={share.fields.from_seq} name="from_seq">
            <Input
              type="number"
              min={1}
              value={from}
              onChange={(e) => setFrom(e.target.value)}
              data-testid="share-from"
            />
          </Field>
          <Field label="To seq" note="optional" compact error={share.fields.to_seq} name="to_seq">
            <Input type="number" min={1} value={to} onChange={(e) => setTo(e.target.value)} data-testid="share-to" />
          </Field>
          <Button type="submit" busy={share.busy} data-testid="share-create">
            Make a share link
          </Button>
        </Form>
      )}
      {made && (
        <p className="mt-2 text-sm" role="status">
          Anyone with this link can read this run until it expires (shown only now):{" "}
          <code className="break-all rounded bg-zinc-100 px-1 dark:bg-zinc-800" data-testid="share-url">
            {made}
          </code>
        </p>
      )}
      <Alert className="mt-2 text-xs">{share.error ?? revoke.error}</Alert>
    </div>
  );
}
