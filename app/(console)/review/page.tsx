"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { TurnFilterSchema } from "../../../server/trajectories/schemas";
import { useTRPC } from "../../_lib/trpc";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";
import { ExperimentSelect } from "../_components/ExperimentSelect";

function CreateQueue() {
  const trpc = useTRPC();
  const create = useAction(trpc.review.createQueue.mutationOptions(), { invalidate: [trpc.review.pathKey()] });
  const [experimentId, setExperimentId] = useState("");
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    // React clears currentTarget once the handler yields: keep the form for the reset after the await.
    const form = e.currentTarget;
    const f = new FormData(form);
    const str = (k: string) => String(f.get(k) ?? "");
    const r = await create.run({
      experimentId,
      name: str("name"),
      description: str("description"),
      reviewersPerItem: Number(str("reviewersPerItem") || 1),
      lockTtlS: Number(str("lockTtlS") || 300),
      assignees: str("assignees")
        .split(/[,\s]+/)
        .filter(Boolean),
      filter: {
        turnType: "MAIN",
        score: TurnFilterSchema.shape.score.safeParse(str("score") || undefined).data,
        ...(f.get("disputedOnly") ? { disputed: true } : {}),
        ...(f.get("unreviewedOnly") ? { relabeled: false } : {}),
        ...(str("q") ? { q: str("q") } : {}),
      },
    });
    if (r.ok) form.reset();
  }
  return (
    <form className="card" onSubmit={onSubmit} aria-label="New review queue">
      <h3 className="card-title">New queue</h3>
      <ErrorBanner error={create.error} max={Infinity} />
      <div className="grid2">
        <ExperimentSelect value={experimentId} onChange={setExperimentId} allowAll={false} />
        <label className="field">
          <span>Name</span>
          <input name="name" aria-label="Queue name" required />
        </label>
        <label className="field">
          <span>Reviewers per item</span>
          <input name="reviewersPerItem" type="number" min={1} max={10} defaultValue={1} />
        </label>
        <label className="field">
          <span>Lock expires after (s)</span>
          <input name="lockTtlS" type="number" min={30} defaultValue={300} />
        </label>
        <label className="field">
          <span>Assignees (emails; empty = every reviewer)</span>
          <input name="assignees" placeholder="a@x.org, b@x.org" />
        </label>
        <label className="field">
          <span>Only judged score</span>
          <select name="score" defaultValue="">
            <option value="">Any</option>
            <option value="1">+1</option>
            <option value="0">0</option>
            <option value="-1">−1</option>
            <option value="unjudged">Not judged</option>
          </select>
        </label>
        <label className="field">
          <span>Only turns matching</span>
          <input name="q" placeholder="full-text search" />
        </label>
        <label className="field">
          <span>Description</span>
          <input name="description" />
        </label>
      </div>
      <div className="toolbar tight">
        <label>
          <input type="checkbox" name="disputedOnly" /> disputed only
        </label>
        <label>
          <input type="checkbox" name="unreviewedOnly" defaultChecked /> not yet relabeled
        </label>
        <span className="spacer" />
        <button className="primary" disabled={!experimentId || create.pending}>
          Create queue
        </button>
      </div>
    </form>
  );
}

export default function ReviewPage() {
  const trpc = useTRPC();
  const me = useQuery(trpc.me.queryOptions());
  const [experimentId, setExperimentId] = useState("");
  const queues = useQuery({
    ...trpc.review.queues.queryOptions({ experimentId: experimentId || undefined }),
    refetchInterval: 5000,
  });
  const canWrite = me.data?.permissions.includes("write") ?? false;
  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>Review</h1>
        <span className="spacer" />
        <Link className="button" href="/review/audit">
          Relabel audit log
        </Link>
      </div>
      <p className="muted">
        Fetch-next hands you one turn at a time under a lock that expires; disputed turns (split judge votes, or user
        feedback against the judge) come first, and you never see a turn twice. Every verdict becomes a reviewer label,
        which training uses ahead of user feedback and the judge.
      </p>
      <div className="toolbar">
        <div style={{ width: 260 }}>
          <ExperimentSelect value={experimentId} onChange={setExperimentId} />
        </div>
      </div>
      {queues.error && <div className="form-error">{queues.error.message}</div>}
      <table className="list" data-testid="queues-table">
        <thead>
          <tr>
            <th>Queue</th>
            <th>Experiment</th>
            <th>Pending</th>
            <th>Disputed</th>
            <th>Locked</th>
            <th>Done</th>
            <th>Reviewers / item</th>
            <th>Assignees</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {queues.data?.map((q) => (
            <tr key={q.id}>
              <td>
                {q.name}
                {q.description && <div className="muted">{q.description}</div>}
              </td>
              <td>{q.experimentName}</td>
              <td>{q.pending}</td>
              <td>{q.disputed ? <span className="badge disputed">{q.disputed}</span> : 0}</td>
              <td>{q.locked}</td>
              <td>{q.done}</td>
              <td>{q.reviewersPerItem}</td>
              <td className="muted">{q.assignees.length ? q.assignees.join(", ") : "everyone"}</td>
              <td>
                <Link className="button primary" href={`/review/${q.id}`}>
                  Review
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {queues.data && !queues.data.length && (
        <div className="empty">No review queues yet.{canWrite ? " Create one below." : ""}</div>
      )}
      {canWrite && (
        <div style={{ marginTop: 16 }}>
          <CreateQueue />
        </div>
      )}
    </>
  );
}
