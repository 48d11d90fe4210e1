"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { SavedView } from "@/lib/core/protocol";
import { deleteView, saveView } from "@/lib/browser/review-api";
import { Button } from "../ui/button";
import { Field, Input } from "../ui/field";
import { Alert } from "../ui/alert";
import { Form } from "../ui/form";
import { useAction } from "../ui/use-action";
import { link, muted } from "./format";

/** A person's saved views of the runs page: links to their query strings; this view can be saved under a name. */
export function SavedViews({ ws, views, query }: { ws: string; views: SavedView[]; query: string }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const save = useAction((n: string) => saveView(ws, n, query), {
    fields: ["name"],
    onDone: () => {
      setName("");
      router.refresh();
    },
  });
  const remove = useAction((id: string) => deleteView(ws, id), { onDone: () => router.refresh() });
  return (
    <section aria-label="Saved views" className="mt-4 flex flex-wrap items-center gap-x-3 gap-y-2 text-sm">
      <span className={`text-xs font-medium uppercase tracking-wide ${muted}`}>Saved views</span>
      {views.length === 0 && <span className={`text-xs ${muted}`}>none yet</span>}
      {views.map((v) => (
        <span key={v.id} className="flex items-center gap-1" data-testid="saved-view">
          <Link className={link} href={`/w/${ws}/runs${v.query ? `?${v.query}` : ""}`}>
            {v.name}
          </Link>
          <Button
            tone="ghost"
            size="xs"
            aria-label={`Delete the saved view ${v.name}`}
            busy={remove.busy}
            onClick={() => remove.run(v.id)}
          >
            ×
          </Button>
        </span>
      ))}
      <Form
        action={save}
        className="ml-auto flex items-start gap-2"
        onSubmit={() => name.trim() && save.run(name.trim())}
      >
        <Field label="Name for this view" hideLabel compact error={save.fields.name} name="name">
          <Input
            data-testid="view-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="Name this view"
          />
        </Field>
        <Button type="submit" busy={save.busy} disabled={!name.trim()} data-testid="view-save">
          Save view
        </Button>
      </Form>
      <Alert className="w-full text-xs">{save.error ?? remove.error}</Alert>
    </section>
  );
}
