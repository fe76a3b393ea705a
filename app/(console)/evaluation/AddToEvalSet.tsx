"use client";
// "Add to eval set" for one recorded turn (its request becomes a held-out prompt, appended as the set's next
// version). Goes to the experiment's first eval set, or a new set named "held-out".
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { messageOf } from "../../_lib/errors";
import { GuardedButton } from "../_components/Permission";

export function AddToEvalSet({ experimentId, turnId }: { experimentId: string; turnId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const sets = useQuery(trpc.evaluation.sets.queryOptions({ experimentId }));
  const add = useMutation(trpc.evaluation.addTurns.mutationOptions());
  const [note, setNote] = useState<string | null>(null);
  const name = sets.data?.[0]?.name ?? "held-out";
  async function onClick() {
    setNote(null);
    try {
      const r = await add.mutateAsync({ experimentId, name, turnIds: [turnId] });
      setNote(`added to ${name} v${r.version}`);
      await qc.invalidateQueries({ queryKey: trpc.evaluation.pathKey() });
    } catch (err) {
      setNote(messageOf(err));
    }
  }
  return (
    <>
      <GuardedButton
        perm="write"
        disabled={add.isPending || sets.isLoading}
        onClick={onClick}
        title={`Append this turn's request to the eval set "${name}"`}
      >
        Add to eval set
      </GuardedButton>
      {note && (
        <span className="muted" role="status">
          {note}
        </span>
      )}
    </>
  );
}
