"use client";
// Judge–human agreement per judge version: accuracy, Cohen's κ, the confusion matrix (rows: the human label,
// columns: the judge's score), and the turns where they disagree: each one click from its trajectory page,
// and all of them one click into a review queue (which also takes every disputed turn as it comes).
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useTRPC } from "../../_lib/trpc";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";
import { GuardedButton } from "../_components/Permission";

const CLASSES = ["−1", "0", "+1"];
const QUEUE_NAME = "Judge–human disagreements";

function useSendToReview(experimentId: string) {
  const trpc = useTRPC();
  const router = useRouter();
  const queues = useQuery(trpc.review.queues.queryOptions({ experimentId }));
  const create = useAction(trpc.review.createQueue.mutationOptions());
  const add = useAction(trpc.review.addTurns.mutationOptions());
  async function send(turnIds: string[]) {
    create.clear();
    const existing = queues.data?.find((q) => q.name === QUEUE_NAME);
    const created = existing
      ? { ok: true as const, data: existing }
      : await create.run({
          experimentId,
          name: QUEUE_NAME,
          description:
            "Turns where the judge and a human label disagree (from the Evaluation page), and every disputed turn.",
          filter: { turnType: "MAIN", disputed: true },
        });
    if (!created.ok) return;
    if ((await add.run({ queueId: created.data.id, turnIds })).ok) router.push(`/review/${created.data.id}`);
  }
  return { send, error: create.error ?? add.error, pending: create.pending || add.pending };
}

export function Agreement({ experimentId }: { experimentId: string }) {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.evaluation.agreement.queryOptions({ experimentId, disagreements: 20 }),
    refetchInterval: 15_000,
  });
  const d = q.data;
  const review = useSendToReview(experimentId);
  return (
    <div className="card" data-testid="eval-agreement">
      <h2 style={{ marginTop: 0 }}>Judge–human agreement</h2>
      {d?.warning && (
        <div className="form-error" role="alert" data-testid="agreement-warning">
          {d.warning}
        </div>
      )}
      <ErrorBanner error={review.error} />
      {d && !d.judges.length && (
        <div className="empty">No turn carries both a judgment and a reviewer label or user feedback yet.</div>
      )}
      {d?.judges.map((j) => (
        <details key={j.judgeVersion} open={j.judgeVersion === d.currentJudgeVersion}>
          <summary>
            {j.judgeKind} {j.model} <code>{j.judgeVersion}</code>
            {j.judgeVersion === d.currentJudgeVersion ? " (current)" : ""}: {j.n} labelled turns · accuracy{" "}
            {j.accuracy === null ? "—" : j.accuracy.toFixed(2)} · κ {j.kappa === null ? "—" : j.kappa.toFixed(2)}
          </summary>
          <table className="list" style={{ maxWidth: 360, margin: "8px 0" }}>
            <thead>
              <tr>
                <th>human ↓ / judge →</th>
                {CLASSES.map((c) => (
                  <th key={c}>{c}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {j.confusion.map((row, h) => (
                <tr key={h}>
                  <td>{CLASSES[h]}</td>
                  {row.map((n, k) => (
                    <td key={k} style={{ fontWeight: h === k ? 600 : 400 }}>
                      {n}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          {j.disagreements.length > 0 && (
            <GuardedButton
              perm="write"
              disabled={review.pending}
              onClick={() => review.send(j.disagreements.map((x) => x.turnId))}
            >
              Review these {j.disagreements.length} in a queue
            </GuardedButton>
          )}
          {j.disagreements.length > 0 && (
            <ul>
              {j.disagreements.map((x) => (
                <li key={x.turnId}>
                  <Link href={`/trajectories/${x.turnId}`}>turn {x.turnId.slice(-8)}</Link>:{" "}
                  {x.humanSource.toLowerCase()} {x.human > 0 ? "+" : ""}
                  {x.human}, judge {x.judge > 0 ? "+" : ""}
                  {x.judge}
                </li>
              ))}
            </ul>
          )}
        </details>
      ))}
    </div>
  );
}
