"use client";
import { useQuery } from "@tanstack/react-query";
import { useParams, useRouter } from "next/navigation";
import { formErrorOf } from "../../../../_lib/errors";
import { useTRPC } from "../../../../_lib/trpc";
import { useAction } from "../../../../_ui/useAction";
import { ExperimentForm } from "../../_components/ExperimentForm";

export default function EditExperimentPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const router = useRouter();
  const exp = useQuery(trpc.experiments.get.queryOptions({ id }));
  const update = useAction(trpc.experiments.update.mutationOptions(), { invalidate: [trpc.experiments.pathKey()] });
  if (exp.error) return <div className="form-error">{exp.error.message}</div>;
  if (!exp.data) return <div className="muted">Loading…</div>;
  const e = exp.data;
  return (
    <>
      <h1>Edit {e.name}</h1>
      {e.activeRun && (
        <div className="notice">
          Run #{e.activeRun.number} keeps the config it was launched with; changes apply to the next run.
        </div>
      )}
      <ExperimentForm
        initial={{
          name: e.name,
          slug: e.slug,
          description: e.description,
          config: e.config as unknown as Record<string, unknown>,
        }}
        secretsSet={e.secretsSet}
        submitLabel="Save changes"
        slugEditable={false}
        onSubmit={async (v) => {
          const r = await update.run({ id, name: v.name, description: v.description, config: v.config as never });
          if (!r.ok) return formErrorOf(r.error);
          router.push(`/experiments/${id}`);
          return null;
        }}
      />
    </>
  );
}
