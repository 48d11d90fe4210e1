import Link from "next/link";
import { link } from "./format";

/** The review pages' way back to the workspace and between each other. */
export function ReviewNav({
  ws,
  here,
  children,
}: {
  ws: string;
  here: "runs" | "run" | "replay" | "compare" | "rollups";
  children?: React.ReactNode;
}) {
  return (
    <nav aria-label="Review" className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
      <Link className={link} href={`/w/${ws}`}>
        Workspace
      </Link>
      <Link className={link} href={`/w/${ws}/runs`} aria-current={here === "runs" ? "page" : undefined}>
        Runs
      </Link>
      <Link className={link} href={`/w/${ws}/runs/rollups`} aria-current={here === "rollups" ? "page" : undefined}>
        Rollups
      </Link>
      {children}
    </nav>
  );
}
