"use client";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, useEffect, useRef, useState, type KeyboardEvent } from "react";
import { ExperimentSelect } from "../_components/ExperimentSelect";
import { Markdown } from "../_components/Markdown";

type Msg = {
  role: "user" | "assistant";
  content: string;
  turnId?: string | null;
  feedback?: 1 | -1;
  error?: string;
  streaming?: boolean;
};

const newSessionId = () => `playground-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** Reads an OpenAI-style SSE stream, calling `onDelta` with each piece of content. */
async function readStream(body: ReadableStream<Uint8Array>, onDelta: (text: string) => void): Promise<void> {
  const reader = body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let end: number;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const event = buf.slice(0, end);
      buf = buf.slice(end + 2);
      for (const line of event.split("\n")) {
        if (!line.startsWith("data: ")) continue;
        const data = line.slice(6).trim();
        if (data === "[DONE]") return;
        const chunk = JSON.parse(data) as {
          choices?: { delta?: { content?: string | null; reasoning_content?: string | null } }[];
          error?: { message?: string };
        };
        if (chunk.error) throw new Error(chunk.error.message ?? "stream error");
        const piece = chunk.choices?.[0]?.delta?.content;
        if (piece) onDelta(piece);
      }
    }
  }
}

/** The conversation per experiment survives a reload (this tab only): the session id with it, so it continues. */
const storeKey = (experimentId: string) => `playground:${experimentId}`;
type Saved = { sessionId: string; system: string; msgs: Msg[] };
function loadSaved(experimentId: string): Saved | null {
  try {
    const raw = experimentId ? sessionStorage.getItem(storeKey(experimentId)) : null;
    return raw ? (JSON.parse(raw) as Saved) : null;
  } catch {
    return null;
  }
}

function Playground() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const experimentId = params.get("experimentId") ?? "";
  const [system, setSystem] = useState("");
  const [msgs, setMsgs] = useState<Msg[]>([]);
  const [input, setInput] = useState("");
  const [busy, setBusy] = useState(false);
  // Chosen in the browser after hydration (a random id rendered on the server would not match the client's).
  const [sessionId, setSessionId] = useState("");
  const abort = useRef<AbortController | null>(null);
  // Which experiment the state below was loaded for: nothing is saved under a new experiment before its own load.
  const [loadedFor, setLoadedFor] = useState<string | null>(null);
  useEffect(() => {
    const saved = loadSaved(experimentId);
    setSessionId(saved?.sessionId ?? newSessionId());
    setMsgs(saved?.msgs.map((m) => ({ ...m, streaming: false })) ?? []);
    setSystem(saved?.system ?? "");
    setLoadedFor(experimentId);
  }, [experimentId]);
  useEffect(() => {
    if (experimentId && sessionId && loadedFor === experimentId)
      sessionStorage.setItem(storeKey(experimentId), JSON.stringify({ sessionId, system, msgs } satisfies Saved));
  }, [experimentId, loadedFor, sessionId, system, msgs]);
  const chooseExperiment = (id: string) => {
    abort.current?.abort();
    router.replace(id ? `${pathname}?experimentId=${id}` : pathname);
  };

  const patchLast = (patch: Partial<Msg> | ((m: Msg) => Partial<Msg>)) =>
    setMsgs((all) =>
      all.map((m, i) => (i === all.length - 1 ? { ...m, ...(typeof patch === "function" ? patch(m) : patch) } : m)),
    );

  async function send() {
    const text = input.trim();
    if (!text || !experimentId || !sessionId || busy) return;
    const history = [...msgs.filter((m) => !m.error), { role: "user" as const, content: text }];
    setMsgs([...history, { role: "assistant", content: "", streaming: true }]);
    setInput("");
    setBusy(true);
    abort.current = new AbortController();
    try {
      const res = await fetch("/api/playground/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          experimentId,
          sessionId,
          messages: [
            ...(system.trim() ? [{ role: "system", content: system.trim() }] : []),
            ...history.map((m) => ({ role: m.role, content: m.content })),
          ],
        }),
        signal: abort.current.signal,
      });
      if (!res.ok || !res.body) {
        const err = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        throw new Error(err?.error?.message ?? `HTTP ${res.status}`);
      }
      patchLast({ turnId: res.headers.get("x-turn-id") });
      await readStream(res.body, (piece) => patchLast((m) => ({ content: m.content + piece })));
      patchLast({ streaming: false });
    } catch (err) {
      patchLast({ streaming: false, error: (err as Error).message });
    } finally {
      setBusy(false);
    }
  }

  async function feedback(i: number, value: 1 | -1) {
    const m = msgs[i];
    if (!m?.turnId) return;
    const res = await fetch("/api/playground/feedback", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ experimentId, turnId: m.turnId, value }),
    });
    if (res.ok) setMsgs((all) => all.map((x, k) => (k === i ? { ...x, feedback: value } : x)));
    else setMsgs((all) => all.map((x, k) => (k === i ? { ...x, error: `feedback failed (${res.status})` } : x)));
  }

  function onKey(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      void send();
    }
  }

  function reset() {
    abort.current?.abort();
    setMsgs([]);
    setSessionId(newSessionId());
  }

  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>Playground</h1>
        <span className="spacer" />
        {sessionId && <span className="muted mono">session {sessionId}</span>}
        {msgs.length > 0 && (
          <Link className="button" href={`/trajectories?sessionId=${encodeURIComponent(sessionId)}`}>
            This session&apos;s turns
          </Link>
        )}
        <button onClick={reset}>New conversation</button>
      </div>
      <p className="muted">
        You talk to the experiment&apos;s agent through the recording proxy, exactly as a client would: every reply is a
        recorded turn that gets judged and can train the policy. Thumbs up or down is stored as your feedback on that
        turn.
      </p>
      <div className="filters">
        <ExperimentSelect value={experimentId} onChange={chooseExperiment} allowAll={false} />
        <label className="field wide">
          <span>System prompt (optional)</span>
          <input aria-label="System prompt" value={system} onChange={(e) => setSystem(e.target.value)} />
        </label>
      </div>
      <div className="chat" data-testid="chat">
        {msgs.map((m, i) => (
          <div key={i} className={`msg ${m.role}`}>
            <div className="role">
              <span>{m.role}</span>
              {m.streaming && <span>streaming…</span>}
            </div>
            {m.content ? <Markdown text={m.content} /> : m.streaming ? <span className="muted">…</span> : null}
            {m.error && <div className="field-error">{m.error}</div>}
            {m.role === "assistant" && !m.streaming && m.turnId && (
              <div className="actions">
                <button
                  aria-label="Good answer"
                  aria-pressed={m.feedback === 1}
                  className={m.feedback === 1 ? "on" : undefined}
                  onClick={() => void feedback(i, 1)}
                >
                  <Thumb /> Good
                </button>
                <button
                  aria-label="Bad answer"
                  aria-pressed={m.feedback === -1}
                  className={m.feedback === -1 ? "on" : undefined}
                  onClick={() => void feedback(i, -1)}
                >
                  <Thumb down /> Bad
                </button>
                {m.feedback && <span className="muted">feedback sent</span>}
                <Link href={`/trajectories/${m.turnId}`}>view turn</Link>
              </div>
            )}
          </div>
        ))}
        <textarea
          aria-label="Message"
          rows={3}
          value={input}
          disabled={!experimentId}
          onChange={(e) => setInput(e.target.value)}
          onKeyDown={onKey}
          placeholder={
            experimentId ? "Message the agent (Enter sends, Shift+Enter for a new line)" : "Choose an experiment first"
          }
        />
        <div className="toolbar">
          <button className="primary" disabled={!experimentId || busy || !input.trim()} onClick={() => void send()}>
            {busy ? "Answering…" : "Send"}
          </button>
          {busy && <button onClick={() => abort.current?.abort()}>Stop</button>}
        </div>
      </div>
    </>
  );
}

/** An inline thumb, so the buttons do not depend on an emoji font being installed. */
function Thumb({ down = false }: { down?: boolean }) {
  return (
    <svg
      width="12"
      height="12"
      viewBox="0 0 24 24"
      aria-hidden="true"
      style={{ verticalAlign: "-1px", transform: down ? "rotate(180deg)" : undefined }}
    >
      <path
        fill="currentColor"
        d="M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6c-.4.4-.6.9-.6 1.4v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2z"
      />
    </svg>
  );
}

export default function PlaygroundPage() {
  return (
    <Suspense fallback={<div className="muted">Loading…</div>}>
      <Playground />
    </Suspense>
  );
}
