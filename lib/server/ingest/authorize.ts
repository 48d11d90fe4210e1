import { CATALOGUE, clipUtf8, isEventType, problem, type FieldError, type ProblemError } from "@/lib/core/protocol";
import type { Credential } from "../credentials";

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * The stateless 403 checks of [ENV5] and [ENV10], run on the raw event before schema
 * validation (403 precedes 422 in [HTTP2]). [ENV11] needs the agent registry and runs in
 * the writer.
 */
export function authorizeRaw(raw: unknown, cred: Credential, base: string): ProblemError | null {
  if (!isObject(raw)) return null; // the schema check reports it
  const deny = (detail: string, pointer: string): ProblemError =>
    problem("forbidden", detail, [{ pointer: base + pointer, message: detail }] as FieldError[]);

  if (cred.kind === "admin")
    return deny("the admin token does not post events; use a harness or person credential", "");
  if (typeof raw.workspace_id === "string" && raw.workspace_id.toUpperCase() !== cred.workspaceId.toUpperCase()) {
    return deny("workspace_id is not the workspace of this credential", "/workspace_id");
  }
  if (isEventType(raw.type)) {
    const sentBy: readonly string[] = CATALOGUE[raw.type].sentBy;
    if (!sentBy.includes(cred.kind)) {
      const by = raw.type === "run.command" ? "people, through the commands API" : sentBy.join(" or ");
      return deny(`${raw.type} is sent by ${by}, not by a ${cred.kind} credential`, "/type");
    }
  }
  const actor = raw.actor;
  if (cred.kind === "person") {
    // The server sets a person's actor; a sent one may only name that same person.
    if (actor !== undefined && !(isObject(actor) && actor.kind === "person" && sameId(actor.id, cred.subjectId))) {
      return deny("a person credential acts only as that person", "/actor");
    }
    return null;
  }
  if (isObject(actor) && typeof actor.kind === "string") {
    if (actor.kind === "harness") {
      if (!sameId(actor.id, cred.subjectId))
        return deny("a harness token acts only as itself or as one of its agents", "/actor/id");
    } else if (actor.kind !== "agent") {
      return deny(
        `actor.kind "${clipUtf8(actor.kind, 40)}" cannot be claimed by a ${cred.kind} credential`,
        "/actor/kind",
      );
    }
  }
  return null;
}

function sameId(a: unknown, b: string): boolean {
  return typeof a === "string" && a.toUpperCase() === b.toUpperCase();
}

/** A harness must say who acts; the schema leaves actor optional only for people. */
export function requireActor(raw: unknown, cred: Credential, base: string): ProblemError | null {
  if (cred.kind === "person") return null;
  if (isObject(raw) && raw.actor === undefined) {
    return problem("validation_failed", "actor is required", [{ pointer: `${base}/actor`, message: "required" }]);
  }
  return null;
}
