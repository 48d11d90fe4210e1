"use client";

import { useEffect, useState } from "react";

/**
 * The server's clock, read on this page: the local clock corrected by the offset seen when
 * the page was rendered (statuses carry server times), ticking once a second.
 */
export function useServerNow(serverNowAtRender: number): number {
  const [offset] = useState(() => serverNowAtRender - Date.now());
  const [now, setNow] = useState(() => Date.now() + offset);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now() + offset), 1000);
    return () => clearInterval(t);
  }, [offset]);
  return now;
}
