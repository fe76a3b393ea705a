"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams, useRouter } from "next/navigation";
import { issuesOf, messageOf } from "../../../../_lib/errors";
import { useTRPC } from "../../../../_lib/trpc";
import { ExperimentForm } from "../../_components/ExperimentForm";

export default function EditExperimentPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const exp = useQuery(trpc.experiments.get.queryOptions({ id }));
  const update = useMutation(trpc.experiments.update.mutationOptions());
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
          try {
            await update.mutateAsync({ id, name: v.name, description: v.description, config: v.config as never });
            await qc.invalidateQueries({ queryKey: trpc.experiments.pathKey() });
            router.push(`/experiments/${id}`);
            return null;
          } catch (err) {
            return issuesOf(err).length ? issuesOf(err) : messageOf(err);
          }
        }}
      />
    </>
  );
}
