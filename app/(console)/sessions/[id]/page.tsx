"use client";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "../../../_lib/trpc";
import { Message, type ChatMessage } from "../../_components/Message";
import { TurnAnnotations } from "../../_components/TurnAnnotations";
import { fmtTime, type AnnotatedTurn } from "../../_components/format";

type Lane = "MAIN" | "SIDE" | "ALL";

/** The messages a turn added, minus the echo of the previous response (shown once, with its annotations). */
function newMessages(turn: AnnotatedTurn, previous: AnnotatedTurn | undefined): { m: ChatMessage; echo: boolean }[] {
  const delta = (Array.isArray(turn.messagesDelta) ? turn.messagesDelta : []) as ChatMessage[];
  return delta
    .map((m, i) => ({
      m,
      echo:
        i === 0 && m.role === "assistant" && previous !== undefined && (m.content ?? "") === (previous.content ?? ""),
    }))
    .filter((x) => !x.echo);
}

function TurnBlock({
  turn,
  previous,
  last,
}: {
  turn: AnnotatedTurn;
  previous: AnnotatedTurn | undefined;
  last: boolean;
}) {
  const response: ChatMessage = {
    role: "assistant",
    content: turn.content,
    tool_calls: turn.toolCalls as ChatMessage["tool_calls"],
    reasoning_content: turn.reasoning ?? undefined,
  };
  return (
    <div id={`turn-${turn.index}`} className="conv" data-testid={`turn-${turn.index}`}>
      {previous && turn.messagesOffset < (previous.messagesOffset ?? 0) && (
        <div className="muted">— the client rewrote earlier history here (compaction) —</div>
      )}
      {newMessages(turn, previous).map((x, i) => (
        <Message key={i} m={x.m} echo={x.echo} />
      ))}
      <Message
        m={response}
        extra={
          <span>
            {turn.turnType === "SIDE" ? "side turn" : `turn #${turn.index}`} · {fmtTime(turn.createdAt)}
            {turn.status === "FAILED" ? " · failed" : ""}
          </span>
        }
      />
      {turn.error && <div className="form-error">{turn.error}</div>}
      <TurnAnnotations turn={turn} />
      {last && turn.nextState !== null && turn.nextState !== undefined && (
        <Message
          m={{
            ...(typeof turn.nextState === "object"
              ? (turn.nextState as ChatMessage)
              : { content: String(turn.nextState) }),
            role: turn.nextStateRole ?? "user",
          }}
          extra={<span>next state</span>}
        />
      )}
    </div>
  );
}

export default function ConversationPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const [lane, setLane] = useState<Lane>("MAIN");
  const session = useQuery(trpc.sessions.get.queryOptions({ id }));
  const conv = useInfiniteQuery(
    trpc.sessions.conversation.infiniteQueryOptions(
      { sessionId: id, lane, limit: 25 },
      { getNextPageParam: (p) => p.nextCursor ?? undefined },
    ),
  );
  if (session.error) return <div className="form-error">{session.error.message}</div>;
  if (!session.data) return <div className="muted">Loading…</div>;
  const s = session.data;
  const first = conv.data?.pages[0];
  const turns = conv.data?.pages.flatMap((p) => p.turns) ?? [];
  const sides = s.turns.filter((t) => t.turnType === "SIDE").length;
  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>Conversation</h1>
        <span className="mono muted">{s.externalId}</span>
        {s.done && <span className="badge">done</span>}
        {s.simulated && <span className="badge">simulated{s.persona ? ` · ${s.persona}` : ""}</span>}
        <span className="spacer" />
        <select aria-label="Lane" value={lane} onChange={(e) => setLane(e.target.value as Lane)} style={{ width: 200 }}>
          <option value="MAIN">Main turns ({s.turns.length - sides})</option>
          <option value="SIDE">Side turns ({sides})</option>
          <option value="ALL">All turns</option>
        </select>
        <Link className="button" href={`/trajectories?sessionId=${s.id}`}>
          As a list
        </Link>
      </div>
      <p className="muted">
        {s.experiment.name} · started {fmtTime(s.createdAt)} · last turn {fmtTime(s.lastTurnAt)} · session id source:{" "}
        {s.idSource}
      </p>
      {conv.error && <div className="form-error">{conv.error.message}</div>}
      <div className="conv">
        {first?.system !== null && first?.system !== undefined && <Message m={first.system as ChatMessage} />}
        {first?.tools !== null && first?.tools !== undefined && (
          <details className="card">
            <summary className="muted">Tools offered to the agent</summary>
            <pre>{JSON.stringify(first.tools, null, 2)}</pre>
          </details>
        )}
        {turns.map((t, i) => (
          <TurnBlock key={t.id} turn={t} previous={turns[i - 1]} last={i === turns.length - 1 && !conv.hasNextPage} />
        ))}
      </div>
      {conv.hasNextPage && (
        <div className="toolbar" style={{ marginTop: 12 }}>
          <button onClick={() => void conv.fetchNextPage()} disabled={conv.isFetchingNextPage}>
            {conv.isFetchingNextPage ? "Loading…" : "Load more turns"}
          </button>
        </div>
      )}
      {conv.data && !turns.length && <div className="empty">No turns in this lane.</div>}
    </>
  );
}
