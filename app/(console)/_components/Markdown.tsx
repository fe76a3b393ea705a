"use client";
import type { ReactNode } from "react";
import ReactMarkdown, { type Components, type Options } from "react-markdown";
import remarkGfm from "remark-gfm";

// Markdown for chat messages: CommonMark + GFM (tables, nested and task lists, strikethrough,
// autolinks) through react-markdown, which builds React elements and never sets innerHTML.
// Recorded model output must not inject markup into the console, so:
// - raw HTML is never parsed as HTML (no rehype-raw); `htmlAsText` turns HTML nodes back into the
//   literal text the model wrote, so a reply containing `<script>` shows it instead of hiding it;
// - URLs pass `safeUrl`: only http(s) and relative links survive; `javascript:`, `data:`, `vbscript:`
//   and any other scheme are dropped (the element keeps its text, loses the attribute);
// - images are not loaded (a recorded reply must not make the browser fetch a URL): they render as
//   a link labelled with their alt text.

type MdNode = { type: string; value?: string; children?: MdNode[] };

/** remark plugin: `html` (raw HTML) nodes become plain `text` nodes with the same source text. */
function htmlAsText() {
  const walk = (node: MdNode) => {
    if (node.type === "html") node.type = "text";
    node.children?.forEach(walk);
  };
  return (tree: MdNode) => walk(tree);
}

/**
 * The URL when it is http(s) or relative (no scheme), otherwise null. Browsers ignore ASCII
 * whitespace and control characters inside a scheme (`java\tscript:`), so they are removed before
 * the scheme is read.
 */
export function safeUrl(url: string): string | null {
  const squashed = url.replace(/[\u0000-\u0020\u007f]/g, "");
  const colon = squashed.indexOf(":");
  const boundary = squashed.search(/[/?#]/);
  if (colon === -1 || (boundary !== -1 && boundary < colon)) return url; // relative
  return /^https?$/i.test(squashed.slice(0, colon)) ? url : null;
}

const urlTransform: Options["urlTransform"] = (url) => safeUrl(url) ?? undefined;

const components: Components = {
  a: ({ href, children }) =>
    href ? (
      <a href={href} target="_blank" rel="noreferrer noopener">
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  img: ({ src, alt }) => {
    const label: ReactNode = alt || "image";
    return typeof src === "string" && src ? (
      <a href={src} target="_blank" rel="noreferrer noopener" className="md-image">
        [{label}]
      </a>
    ) : (
      <span className="md-image">[{label}]</span>
    );
  },
  table: ({ children }) => (
    <div className="md-table" style={{ overflowX: "auto" }}>
      <table style={{ borderCollapse: "collapse" }}>{children}</table>
    </div>
  ),
  th: ({ children, style }) => (
    <th style={{ ...style, border: "1px solid var(--border)", padding: "2px 8px" }}>{children}</th>
  ),
  td: ({ children, style }) => (
    <td style={{ ...style, border: "1px solid var(--border)", padding: "2px 8px" }}>{children}</td>
  ),
};

const remarkPlugins: Options["remarkPlugins"] = [remarkGfm, htmlAsText];

export function Markdown({ text }: { text: string }) {
  return (
    <div className="md">
      <ReactMarkdown remarkPlugins={remarkPlugins} urlTransform={urlTransform} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
