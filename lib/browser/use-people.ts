"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { ROUTES } from "@/lib/core/routes";
import { call } from "./api";

/**
 * People's names as a page knows them, learning the ones it meets later: a person who joined
 * after the page was drawn and then answers an ask ([ASK2]) is named, not "someone". `ids` are
 * the people the page must name; an unknown one asks the workspace's people list again (once
 * per unknown id).
 */
export function usePeople(workspaceId: string, persons: Record<string, string>, ids: string[]): Record<string, string> {
  const [learned, setLearned] = useState<Record<string, string>>({});
  const asked = useRef(new Set<string>());
  const unknown = ids.filter((id) => !persons[id] && !learned[id] && !asked.current.has(id));
  const key = [...new Set(unknown)].sort().join(",");
  useEffect(() => {
    if (!key) return;
    for (const id of key.split(",")) asked.current.add(id);
    call(ROUTES.people, { params: { ws: workspaceId } })
      .then((r) => setLearned((l) => ({ ...l, ...Object.fromEntries(r.people.map((p) => [p.id, p.name])) })))
      .catch(() => {}); // a name stays "someone" until the next page load; nothing else depends on it
  }, [key, workspaceId]);
  return useMemo(() => (Object.keys(learned).length ? { ...learned, ...persons } : persons), [learned, persons]);
}
