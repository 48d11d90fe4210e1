import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import type { Credential } from "./credentials";
import type { ChipsServices } from "./services";
import { SESSION_COOKIE } from "./sessions";

/** The server's services, handed to Next's module graph through globalThis by server.ts. */
export function services(): ChipsServices {
  const svc = (globalThis as { __chips?: ChipsServices }).__chips;
  if (!svc)
    throw new Error("Chips services are not running: start the app with `npm start` or `npm run dev` (server.ts)");
  return svc;
}

/** The person of this request's session, in workspace `ws`; else off to the login page. */
export async function requirePerson(ws: string): Promise<Credential & { kind: "person" }> {
  const jar = await cookies();
  const cred = await services().sessions.resolve(jar.get(SESSION_COOKIE)?.value);
  if (!cred) redirect("/login");
  if (cred.workspaceId !== ws) redirect("/login?error=other_workspace");
  return cred as Credential & { kind: "person" };
}
