"use client";

import { memo, useState } from "react";
import ReactMarkdown, { defaultUrlTransform, type Components } from "react-markdown";
import rehypeSanitize from "rehype-sanitize";
import remarkGfm from "remark-gfm";

/** Only these link schemes survive; everything else (javascript:, data:, vbscript:, …) is dropped. */
const SAFE_URL = /^(https?:|mailto:)/i;

function safeUrl(url: string): string {
  const u = defaultUrlTransform(url);
  return u && (SAFE_URL.test(u) || u.startsWith("#")) ? u : "";
}

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

/** Raw HTML in a message is shown as the text it is, never parsed as HTML ([UI4]). */
function remarkHtmlAsText() {
  const walk = (n: MdNode) => {
    if (n.type === "html") n.type = "text";
    n.children?.forEach(walk);
  };
  return (tree: MdNode) => walk(tree);
}

const components: Components = {
  a: ({ href, children }) =>
    href ? (
      <a
        href={href}
        target="_blank"
        rel="noopener noreferrer nofollow ugc"
        className="text-blue-700 underline underline-offset-2 dark:text-blue-300"
      >
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  // Images would make requests leave the page on an agent's say-so: shown as their text.
  img: ({ alt }) => <span className="text-zinc-500">[image{alt ? `: ${alt}` : ""}]</span>,
  pre: ({ children }) => (
    <pre className="my-2 overflow-x-auto rounded-md bg-zinc-100 p-3 text-[13px] leading-5 dark:bg-zinc-900">
      {children}
    </pre>
  ),
  code: ({ children, className }) => (
    <code className={`${className ?? ""} rounded bg-zinc-100 px-1 py-0.5 text-[0.9em] dark:bg-zinc-800`}>
      {children}
    </code>
  ),
  table: ({ children }) => (
    <div className="my-2 overflow-x-auto">
      <table className="text-sm">{children}</table>
    </div>
  ),
};

/**
 * Untrusted markdown, rendered safely ([UI4]): raw HTML shown as text, a sanitizer over the
 * tree anyway, only http(s)/mailto links, no images.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown break-words [&_ol]:list-decimal [&_pre_code]:bg-transparent [&_pre_code]:p-0 [&_ol]:pl-5 [&_p]:my-1 [&_ul]:list-disc [&_ul]:pl-5">
      <ReactMarkdown
        remarkPlugins={[remarkGfm, remarkHtmlAsText]}
        rehypePlugins={[rehypeSanitize]}
        urlTransform={safeUrl}
        components={components}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
});

const LONG_CHARS = 1200;
const LONG_LINES = 16;

/** Long outputs collapse behind "Show more" ([UI4]). */
export function Collapsible({ text, children }: { text: string; children: React.ReactNode }) {
  const long = text.length > LONG_CHARS || text.split("\n").length > LONG_LINES;
  const [open, setOpen] = useState(false);
  if (!long) return <>{children}</>;
  return (
    <div>
      <div className={open ? "" : "relative max-h-72 overflow-hidden"}>
        {children}
        {!open && (
          <div className="pointer-events-none absolute inset-x-0 bottom-0 h-12 bg-gradient-to-t from-white dark:from-zinc-950" />
        )}
      </div>
      <button
        type="button"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        className="mt-1 text-xs font-medium text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-blue-300"
      >
        {open ? "Show less" : "Show more"}
      </button>
    </div>
  );
}
