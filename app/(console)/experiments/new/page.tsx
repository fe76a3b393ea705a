"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { ExperimentConfigSchema } from "../../../../server/config/experimentConfig";
import { issuesOf, messageOf } from "../../../_lib/errors";
import { useTRPC } from "../../../_lib/trpc";
import { ExperimentForm } from "../_components/ExperimentForm";

function NewExperiment() {
  const trpc = useTRPC();
  const router = useRouter();
  const qc = useQueryClient();
  const method = useSearchParams().get("method");
  const create = useMutation(trpc.experiments.create.mutationOptions());
  const initialConfig = ExperimentConfigSchema.parse(method === "grpo" || method === "opd" ? { method } : {});
  return (
    <>
      <h1>New experiment</h1>
      <ExperimentForm
        initial={{ name: "", slug: "", description: "", config: initialConfig as unknown as Record<string, unknown> }}
        submitLabel="Create experiment"
        slugEditable
        onSubmit={async (v) => {
          try {
            const e = await create.mutateAsync(v as Parameters<typeof create.mutateAsync>[0]);
            await qc.invalidateQueries({ queryKey: trpc.experiments.pathKey() });
            router.push(`/experiments/${e.id}`);
            return null;
          } catch (err) {
            return issuesOf(err).length ? issuesOf(err) : messageOf(err);
          }
        }}
      />
    </>
  );
}

export default function NewExperimentPage() {
  return (
    <Suspense>
      <NewExperiment />
    </Suspense>
  );
}
