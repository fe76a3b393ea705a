"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_lib/trpc";

/** Picks an experiment (by id); "" = all (when allowed). */
export function ExperimentSelect({
  value,
  onChange,
  allowAll = true,
  label = "Experiment",
}: {
  value: string;
  onChange: (id: string) => void;
  allowAll?: boolean;
  label?: string;
}) {
  const trpc = useTRPC();
  const list = useQuery(trpc.experiments.list.queryOptions({ status: "ALL", limit: 200 }));
  return (
    <label className="field">
      <span>{label}</span>
      <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
        {allowAll && <option value="">All experiments</option>}
        {!allowAll && !value && <option value="">Choose…</option>}
        {list.data?.items.map((e) => (
          <option key={e.id} value={e.id}>
            {e.name}
          </option>
        ))}
      </select>
    </label>
  );
}
