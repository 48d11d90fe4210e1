/**
 * What one timeline item's Markdown costs to render: the room's <Markdown> (react-markdown
 * + remark-gfm + rehype-sanitize, the unified pipeline run on every render) rendered to a
 * string in Node, over the texts the room bench seeds. Evidence for where the browser's
 * scroll-back long tasks go; same V8, no DOM.
 *
 *   node --import tsx bench/room/markdown-cost.ts
 */
import path from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { Markdown } from "@/components/ui/markdown";
import { median } from "../lib/hist";
import { TEXTS } from "./seed";

export function markdownCost(rounds = 300): { perItem: number; plain: number } {
  const texts = Array.from({ length: rounds }, (_, i) => TEXTS[i % TEXTS.length](i));
  const time = (f: (t: string) => void) => {
    const per: number[] = [];
    for (let k = 0; k < 5; k++) {
      const t0 = performance.now();
      for (const t of texts) f(t);
      per.push((performance.now() - t0) / texts.length);
    }
    return median(per);
  };
  // Warm the JIT first.
  for (const t of texts.slice(0, 100)) renderToStaticMarkup(createElement(Markdown, { text: t }));
  const perItem = time((t) => renderToStaticMarkup(createElement(Markdown, { text: t })));
  const plain = time((t) => renderToStaticMarkup(createElement("div", { className: "markdown" }, t)));
  return { perItem, plain };
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const c = markdownCost();
  console.log(
    `Markdown item render: ${c.perItem.toFixed(3)} ms each (plain text in a div: ${c.plain.toFixed(3)} ms) — median of 5 rounds over the seeded texts`,
  );
}
