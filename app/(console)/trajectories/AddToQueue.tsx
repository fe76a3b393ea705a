"use client";
// Langfuse-style "add to annotation queue": the turns ticked in the trajectory list go into one of the
// experiment's review queues (review.addTurns; turns already there are left as they are).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { messageOf } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";

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
  const qc = useQueryClient();
  const queues = useQuery(trpc.review.queues.queryOptions({ experimentId }));
  const add = useMutation(trpc.review.addTurns.mutationOptions());
  const [queueId, setQueueId] = useState("");
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const chosen = queueId || queues.data?.[0]?.id || "";
  const n = turnIds.length;

  async function submit() {
    const q = queues.data?.find((x) => x.id === chosen);
    if (!q) return;
    try {
      const { added } = await add.mutateAsync({ queueId: q.id, turnIds });
      const already = n - added;
      setMsg({
        ok: true,
        text: `Added ${added} turn${added === 1 ? "" : "s"} to ${q.name}${already ? ` (${already} already there)` : ""}.`,
      });
      await qc.invalidateQueries({ queryKey: trpc.review.pathKey() });
      onDone();
    } catch (err) {
      setMsg({ ok: false, text: messageOf(err) });
    }
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
          <button className="primary" disabled={!n || add.isPending} onClick={() => void submit()}>
            Add to queue
          </button>
        </>
      )}
      {n > 0 && <button onClick={onDone}>Clear selection</button>}
      {msg && (
        <span className={msg.ok ? "muted" : "field-error"} role="status">
          {msg.text}
        </span>
      )}
    </div>
  );
}
