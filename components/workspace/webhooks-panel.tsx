"use client";

import { useCallback, useEffect, useState } from "react";
import type { Webhook, WebhookDelivery } from "@/lib/core/protocol";
import { addWebhook, listWebhooks, removeWebhook, webhookDeliveries } from "@/lib/browser/webhook-api";

const heading = "mt-8 text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400";
const muted = "text-xs text-zinc-600 dark:text-zinc-400";
const button =
  "rounded-md border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-zinc-700 dark:hover:bg-zinc-800";
const input = "rounded-md border border-zinc-300 bg-white px-2 py-0.5 text-sm dark:border-zinc-700 dark:bg-zinc-900";
/** How often the list is read again while the page is open: deliveries move on their own. */
const REFRESH_MS = 3000;

/**
 * An owner's webhooks for new asks ([ASK7]): add one (a Slack-compatible incoming-webhook
 * URL), see each one's deliveries counted and, opened, its latest deliveries with their
 * attempts and last error; remove it.
 */
export function WebhooksPanel({ workspaceId }: { workspaceId: string }) {
  const [hooks, setHooks] = useState<Webhook[]>([]);
  const [url, setUrl] = useState("");
  const [name, setName] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [log, setLog] = useState<WebhookDelivery[]>([]);

  const reload = useCallback(async () => {
    try {
      setHooks(await listWebhooks(workspaceId));
      if (open) setLog(await webhookDeliveries(workspaceId, open));
    } catch {
      // read again at the next refresh
    }
  }, [workspaceId, open]);
  useEffect(() => {
    void reload();
    const t = setInterval(() => void reload(), REFRESH_MS);
    return () => clearInterval(t);
  }, [reload]);

  return (
    <section aria-labelledby="webhooks-heading" data-testid="webhooks-panel">
      <h2 id="webhooks-heading" className={heading}>
        Webhooks for new asks
      </h2>
      <p className={`${muted} mt-1`}>
        Each new ask is posted as Slack-compatible JSON (an incoming webhook’s URL), retried when it fails.
      </p>
      <form
        className="mt-2 flex flex-wrap items-end gap-2"
        onSubmit={async (e) => {
          e.preventDefault();
          const err = await addWebhook(workspaceId, url.trim(), name.trim() || undefined);
          setProblem(err);
          if (!err) {
            setUrl("");
            setName("");
            await reload();
          }
        }}
      >
        <label className="text-xs">
          URL
          <input
            data-testid="webhook-url"
            type="url"
            required
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            className={`${input} block w-80`}
          />
        </label>
        <label className="text-xs">
          Name (optional)
          <input
            data-testid="webhook-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            className={`${input} block`}
          />
        </label>
        <button type="submit" data-testid="webhook-add" className={button}>
          Add webhook
        </button>
      </form>
      {problem && (
        <p role="alert" className="mt-1 text-sm text-red-700 dark:text-red-400">
          {problem}
        </p>
      )}
      <ul className="mt-3 space-y-2">
        {hooks.map((h) => (
          <li key={h.id} data-webhook-id={h.id} className="text-sm">
            <span className="font-medium">{h.name}</span> <span className={muted}>{h.url_hint}</span>{" "}
            <span data-testid="webhook-counts" className={muted}>
              · {h.deliveries.delivered} delivered, {h.deliveries.pending} trying, {h.deliveries.failed} failed
            </span>{" "}
            <button
              type="button"
              className={button}
              aria-expanded={open === h.id}
              data-testid="webhook-deliveries"
              onClick={async () => {
                const next = open === h.id ? null : h.id;
                setOpen(next);
                setLog(next ? await webhookDeliveries(workspaceId, next).catch(() => []) : []);
              }}
            >
              Deliveries
            </button>{" "}
            <button
              type="button"
              className={button}
              data-testid="webhook-remove"
              onClick={async () => {
                setProblem(await removeWebhook(workspaceId, h.id));
                await reload();
              }}
            >
              Remove
            </button>
            {open === h.id && (
              <table className="mt-1 w-full text-left text-xs" data-testid="webhook-log">
                <thead>
                  <tr className={muted}>
                    <th className="font-medium">ask</th>
                    <th className="font-medium">state</th>
                    <th className="font-medium">attempts</th>
                    <th className="font-medium">last answer</th>
                  </tr>
                </thead>
                <tbody>
                  {log.map((d) => (
                    <tr key={d.id} data-delivery-state={d.state} data-attempts={d.attempts}>
                      <td>…{d.ask_id.slice(-6)}</td>
                      <td>{d.state}</td>
                      <td>{d.attempts}</td>
                      <td>{d.last_error ?? (d.last_status ? `HTTP ${d.last_status}` : "—")}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
