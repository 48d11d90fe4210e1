"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { createRoom } from "@/lib/browser/api";
import { Button } from "../ui/button";
import { Field, Input } from "../ui/field";
import { Alert } from "../ui/alert";
import { Form } from "../ui/form";
import { useAction } from "../ui/use-action";

/** Create a room in this workspace, then open it. */
export function NewRoomForm({ workspaceId }: { workspaceId: string }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const create = useAction((n: string) => createRoom(workspaceId, n), {
    fields: ["name"],
    onDone: (room) => router.push(`/w/${workspaceId}/r/${room.id}`),
  });
  return (
    <Form action={create} className="mt-4" onSubmit={() => name.trim() && create.run(name.trim())}>
      <div className="flex items-start gap-2">
        <Field label="New room name" hideLabel error={create.fields.name} name="name" className="min-w-0 flex-1">
          <Input
            data-testid="new-room-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="New room, e.g. release-train"
            maxLength={200}
          />
        </Field>
        <Button
          type="submit"
          tone="primary"
          size="lg"
          data-testid="new-room-create"
          busy={create.busy}
          disabled={!name.trim()}
        >
          Create room
        </Button>
      </div>
      <Alert className="mt-1 text-sm">{create.error}</Alert>
    </Form>
  );
}
