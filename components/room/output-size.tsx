import { objectLink } from "@/lib/browser/api";
import type { ObjectRef } from "@/lib/core/protocol/runner-contract";
import { formatBytes } from "./objects";

/**
 * "output: 195.3 KB (open)" ([RN3]): how big a command's whole output is, and — where the
 * reader may read the run's objects — a link that downloads all of it through a signed URL
 * Chips makes at the click (a shared view has no link).
 */
export function OutputSize({ runId, output, of }: { runId: string | null; output: ObjectRef; of: string }) {
  const size = formatBytes(output.bytes);
  return (
    <span data-testid="output-size" data-bytes={output.bytes} className="text-zinc-600 dark:text-zinc-400">
      output: {size}
      {runId && (
        <>
          {" ("}
          <a
            data-testid="output-open"
            href={objectLink(runId, output.sha256)}
            download={`output-${output.sha256.slice(0, 12)}.txt`}
            aria-label={`Open the whole output of ${of} (${size})`}
            className="text-blue-700 underline hover:text-blue-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 dark:text-blue-300 dark:hover:text-blue-200"
          >
            open
          </a>
          {")"}
        </>
      )}
    </span>
  );
}
