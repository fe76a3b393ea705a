"use client";
// Langfuse-style "add to annotation queue": the turns ticked in the trajectory list go into one of the
// experiment's review queues (review.addTurns; turns already there are left as they are).
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";

export function AddToQueue({
  experimentId,
  turnIds,
  onDone,
}: {
  experimentId: string;
  turnIds: string[];
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const queues = useQuery(trpc.review.queues.queryOptions({ experimentId }));
  const add = useAction(trpc.review.addTurns.mutationOptions(), { invalidate: [trpc.review.pathKey()] });
  const [queueId, setQueueId] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const chosen = queueId || queues.data?.[0]?.id || "";
  const n = turnIds.length;

  async function submit() {
    const q = queues.data?.find((x) => x.id === chosen);
    if (!q) return;
    setDone(null);
    const r = await add.run({ queueId: q.id, turnIds });
    if (!r.ok) return;
    const { added } = r.data;
    const already = n - added;
    setDone(
      `Added ${added} turn${added === 1 ? "" : "s"} to ${q.name}${already ? ` (${already} already there)` : ""}.`,
    );
    onDone();
  }

  return (
    <div className="toolbar" data-testid="add-to-queue">
      <span>{n ? `${n} turn${n === 1 ? "" : "s"} selected` : "Tick turns to add them to a review queue"}</span>
      {queues.data && !queues.data.length && (
        <span className="muted">This experiment has no review queue yet: create one on the Review page.</span>
      )}
      {!!queues.data?.length && (
        <>
          <select aria-label="Review queue" value={chosen} onChange={(e) => setQueueId(e.target.value)}>
            {queues.data.map((q) => (
              <option key={q.id} value={q.id}>
                {q.name}
              </option>
            ))}
          </select>
          <button className="primary" disabled={!n || add.pending} onClick={() => void submit()}>
            Add to queue
          </button>
        </>
      )}
      {n > 0 && <button onClick={onDone}>Clear selection</button>}
      {done && (
        <span className="muted" role="status">
          {done}
        </span>
      )}
      <ErrorBanner error={add.error} />
    </div>
  );
}
