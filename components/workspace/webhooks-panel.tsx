"use client";

import { useCallback, useEffect, useState } from "react";
import type { Webhook, WebhookDelivery } from "@/lib/core/protocol";
import { addWebhook, listWebhooks, removeWebhook, webhookDeliveries } from "@/lib/browser/webhook-api";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, Input } from "../ui/field";
import { Form } from "../ui/form";
import { Table, Td } from "../ui/table";
import { useAction } from "../ui/use-action";
import { heading, muted } from "./panel-style";

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
  const add = useAction(() => addWebhook(workspaceId, url.trim(), name.trim() || undefined), {
    fields: ["url", "name"],
    refused: (s) => `Could not add it (${s}).`,
    onDone: () => {
      setUrl("");
      setName("");
      void reload();
    },
  });
  const remove = useAction((id: string) => removeWebhook(workspaceId, id), { onDone: () => void reload() });

  return (
    <section aria-labelledby="webhooks-heading" data-testid="webhooks-panel">
      <h2 id="webhooks-heading" className={heading}>
        Webhooks for new asks
      </h2>
      <p className={`${muted} mt-1`}>
        Each new ask is posted as Slack-compatible JSON (an incoming webhook’s URL), retried when it fails.
      </p>
      <Form action={add} className="mt-2 flex flex-wrap items-end gap-2" onSubmit={() => add.run()}>
        <Field label="URL" name="url" error={add.fields.url} compact>
          <Input
            data-testid="webhook-url"
            type="url"
            required
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            className="block w-80"
          />
        </Field>
        <Field label="Name" note="optional" name="name" error={add.fields.name} compact>
          <Input data-testid="webhook-name" value={name} onChange={(e) => setName(e.target.value)} className="block" />
        </Field>
        <Button type="submit" size="xs" data-testid="webhook-add" busy={add.busy}>
          Add webhook
        </Button>
      </Form>
      <Alert className="mt-1 text-sm">{add.error ?? remove.error}</Alert>
      <ul className="mt-3 space-y-2">
        {hooks.map((h) => (
          <li key={h.id} data-webhook-id={h.id} className="text-sm">
            <span className="font-medium">{h.name}</span> <span className={muted}>{h.url_hint}</span>{" "}
            <span data-testid="webhook-counts" className={muted}>
              · {h.deliveries.delivered} delivered, {h.deliveries.pending} trying, {h.deliveries.failed} failed
            </span>{" "}
            <Button
              size="xs"
              aria-expanded={open === h.id}
              data-testid="webhook-deliveries"
              onClick={async () => {
                const next = open === h.id ? null : h.id;
                setOpen(next);
                setLog(next ? await webhookDeliveries(workspaceId, next).catch(() => []) : []);
              }}
            >
              Deliveries
            </Button>{" "}
            <Button size="xs" data-testid="webhook-remove" busy={remove.busy} onClick={() => void remove.run(h.id)}>
              Remove
            </Button>
            {open === h.id && (
              <Table
                caption={`Latest deliveries of ${h.name}`}
                columns={["ask", "state", "attempts", "last answer"]}
                className="mt-1 w-full text-xs"
                data-testid="webhook-log"
              >
                {log.map((d) => (
                  <tr key={d.id} data-delivery-state={d.state} data-attempts={d.attempts}>
                    <Td>…{d.ask_id.slice(-6)}</Td>
                    <Td>{d.state}</Td>
                    <Td>{d.attempts}</Td>
                    <Td>{d.last_error ?? (d.last_status ? `HTTP ${d.last_status}` : "—")}</Td>
                  </tr>
                ))}
              </Table>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
