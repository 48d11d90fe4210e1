import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { services } from "@/lib/server/page-context";
import { SESSION_COOKIE } from "@/lib/server/sessions";

export const dynamic = "force-dynamic";

/** Logged in: straight to the workspace. Otherwise: how to get in. */
export default async function Home() {
  const cred = await services().sessions.resolve((await cookies()).get(SESSION_COOKIE)?.value);
  if (cred?.workspaceId) redirect(`/w/${cred.workspaceId}`);
  redirect("/login");
}
