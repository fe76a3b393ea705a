"use client";
import type { ReactNode } from "react";
import { Markdown } from "./Markdown";

type Part = { type?: string; text?: string; image_url?: { url?: string } };
type ToolCall = { id?: string; type?: string; function?: { name?: string; arguments?: string } };
export type ChatMessage = {
  role?: string;
  content?: string | Part[] | null;
  name?: string;
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string;
  reasoning_content?: string;
};

function contentText(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => (p.type === "text" || typeof p.text === "string" ? (p.text ?? "") : `[${p.type ?? "part"}]`))
    .join("\n");
}

function prettyArgs(args: string | undefined): string {
  if (!args) return "";
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

export function ToolCalls({ calls }: { calls: ToolCall[] }) {
  return (
    <>
      {calls.map((c, i) => (
        <div key={c.id ?? i} className="toolcall">
          <div className="muted" style={{ fontSize: 12 }}>
            tool call <span className="mono">{c.function?.name ?? "?"}</span>
            {c.id ? <span className="mono"> · {c.id}</span> : null}
          </div>
          <pre style={{ margin: "4px 0 0" }}>{prettyArgs(c.function?.arguments)}</pre>
        </div>
      ))}
    </>
  );
}

/** One chat message: role, markdown content (tool output verbatim), tool calls and their ids. */
export function Message({
  m,
  extra,
  echo,
  testId,
}: {
  m: ChatMessage;
  extra?: ReactNode;
  echo?: boolean;
  testId?: string;
}) {
  const role = m.role ?? "unknown";
  const text = contentText(m.content);
  return (
    <div className={`msg ${role}${echo ? " echo" : ""}`} data-testid={testId}>
      <div className="role">
        <span>{role}</span>
        {m.name && <span className="mono">{m.name}</span>}
        {m.tool_call_id && <span className="mono">→ {m.tool_call_id}</span>}
        {echo && <span>(echo of the previous response)</span>}
        {extra}
      </div>
      {m.reasoning_content && (
        <details>
          <summary className="muted">reasoning</summary>
          <pre style={{ whiteSpace: "pre-wrap" }}>{m.reasoning_content}</pre>
        </details>
      )}
      {text &&
        (role === "tool" ? <pre style={{ whiteSpace: "pre-wrap", margin: 0 }}>{text}</pre> : <Markdown text={text} />)}
      {m.tool_calls?.length ? <ToolCalls calls={m.tool_calls} /> : null}
    </div>
  );
}
