"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useTRPC } from "../../../_lib/trpc";
import { AuditTable } from "../../_components/AuditTable";
import { Message, type ChatMessage } from "../../_components/Message";
import { RelabelForm } from "../../_components/RelabelForm";
import { TurnAnnotations } from "../../_components/TurnAnnotations";
import { fmtTime } from "../../_components/format";
import { AddToEvalSet } from "../../evaluation/AddToEvalSet";

export default function TurnPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const me = useQuery(trpc.me.queryOptions());
  const turn = useQuery(trpc.turns.get.queryOptions({ id }));
  if (turn.error) return <div className="form-error">{turn.error.message}</div>;
  if (!turn.data) return <div className="muted">Loading…</div>;
  const t = turn.data;
  const canReview = me.data?.permissions.includes("review") ?? false;
  const messages = t.messages as ChatMessage[];
  const response: ChatMessage = {
    role: "assistant",
    content: t.content,
    tool_calls: t.toolCalls as ChatMessage["tool_calls"],
    reasoning_content: t.reasoning ?? undefined,
  };
  const reviewer = t.labels.find((l) => l.source === "REVIEWER");
  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>Turn #{t.index}</h1>
        <span className={`badge ${t.status === "OK" ? "alive" : "FAILED"}`}>{t.status.toLowerCase()}</span>
        <span className="badge">{t.turnType.toLowerCase()}</span>
        <span className="spacer" />
        <AddToEvalSet experimentId={t.experimentId} turnId={t.id} />
        <Link className="button" href={`/sessions/${t.sessionId}#turn-${t.index}`}>
          Whole conversation
        </Link>
        <Link className="button" href={`/trajectories?experimentId=${t.experimentId}`}>
          Experiment&apos;s turns
        </Link>
      </div>
      <dl className="kv card">
        <dt>Experiment</dt>
        <dd>
          {t.experiment.name}{" "}
          <span className="muted mono">
            ({t.experiment.slug}, {t.method})
          </span>
        </dd>
        <dt>Session</dt>
        <dd className="mono">
          {t.session.externalId}
          {t.session.done ? " (done)" : ""}
        </dd>
        <dt>Recorded</dt>
        <dd>
          {fmtTime(t.createdAt)} · {t.latencyMs ?? "?"} ms{t.ttftMs !== null ? ` (first token ${t.ttftMs} ms)` : ""}
        </dd>
        <dt>Tokens</dt>
        <dd>
          {t.promptTokens ?? "?"} prompt · {t.completionTokens ?? "?"} completion · {t.responseTokens} recorded ids ·
          finish {t.finishReason ?? "—"}
        </dd>
        <dt>Upstream</dt>
        <dd className="mono">{t.upstreamModel ?? "—"}</dd>
        {t.error && (
          <>
            <dt>Error</dt>
            <dd className="field-error">{t.error}</dd>
          </>
        )}
      </dl>
      <div className="review-grid">
        <div>
          <h2>Request</h2>
          <div className="conv">
            {messages.map((m, i) => (
              <Message key={i} m={m} />
            ))}
          </div>
          <h2>Response</h2>
          <div className="conv">
            <Message m={response} testId="turn-response" />
            <TurnAnnotations turn={t} link={false} />
            {t.nextState !== null && t.nextState !== undefined && (
              <Message
                m={{
                  ...(typeof t.nextState === "object"
                    ? (t.nextState as ChatMessage)
                    : { content: String(t.nextState) }),
                  role: t.nextStateRole ?? "user",
                }}
                extra={<span>next state</span>}
              />
            )}
            {(t.nextState === null || t.nextState === undefined) && (
              <div className="muted">No next state{t.session.done ? ": the session ended here." : " yet."}</div>
            )}
          </div>
          <h2>Audit log</h2>
          <AuditTable entries={t.audit} />
        </div>
        <div className="review-panel">
          {canReview ? (
            <RelabelForm
              key={t.id + (reviewer?.id ?? "")}
              turnId={t.id}
              initial={{ value: t.training?.value ?? null, hint: t.training?.hint ?? null }}
            />
          ) : (
            <div className="card muted">Relabeling needs the reviewer role.</div>
          )}
        </div>
      </div>
    </>
  );
}
