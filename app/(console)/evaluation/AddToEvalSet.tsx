"use client";
// "Add to eval set" for one recorded turn (its request becomes a held-out prompt, appended as the set's next
// version). Goes to the experiment's first eval set, or a new set named "held-out".
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";
import { GuardedButton } from "../_components/Permission";

export function AddToEvalSet({ experimentId, turnId }: { experimentId: string; turnId: string }) {
  const trpc = useTRPC();
  const sets = useQuery(trpc.evaluation.sets.queryOptions({ experimentId }));
  const add = useAction(trpc.evaluation.addTurns.mutationOptions(), { invalidate: [trpc.evaluation.pathKey()] });
  const [note, setNote] = useState<string | null>(null);
  const name = sets.data?.[0]?.name ?? "held-out";
  async function onClick() {
    setNote(null);
    const r = await add.run({ experimentId, name, turnIds: [turnId] });
    if (r.ok) setNote(`added to ${name} v${r.data.version}`);
  }
  return (
    <>
      <GuardedButton
        perm="write"
        disabled={add.pending || sets.isLoading}
        onClick={onClick}
        title={`Append this turn's request to the eval set "${name}"`}
      >
        Add to eval set
      </GuardedButton>
      <ErrorBanner error={add.error} />
      {note && (
        <span className="muted" role="status">
          {note}
        </span>
      )}
    </>
  );
}
