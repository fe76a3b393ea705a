"use client";
import { useRouter, useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { ExperimentConfigSchema } from "../../../../server/config/experimentConfig";
import { formErrorOf } from "../../../_lib/errors";
import { useTRPC } from "../../../_lib/trpc";
import { useAction } from "../../../_ui/useAction";
import { ExperimentForm } from "../_components/ExperimentForm";

function NewExperiment() {
  const trpc = useTRPC();
  const router = useRouter();
  const method = useSearchParams().get("method");
  const create = useAction(trpc.experiments.create.mutationOptions(), { invalidate: [trpc.experiments.pathKey()] });
  const initialConfig = ExperimentConfigSchema.parse(method === "grpo" || method === "opd" ? { method } : {});
  return (
    <>
      <h1>New experiment</h1>
      <ExperimentForm
        initial={{ name: "", slug: "", description: "", config: initialConfig as unknown as Record<string, unknown> }}
        submitLabel="Create experiment"
        slugEditable
        onSubmit={async (v) => {
          // The form checked `v` against the same schema; the server parses it again.
          const r = await create.run(v as Parameters<typeof create.run>[0]);
          if (!r.ok) return formErrorOf(r.error);
          router.push(`/experiments/${r.data.id}`);
          return null;
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
