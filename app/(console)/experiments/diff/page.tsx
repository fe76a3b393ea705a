"use client";
import { useQuery } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { useTRPC } from "../../../_lib/trpc";

function Diff() {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const a = params.get("a") ?? "";
  const b = params.get("b") ?? "";
  const kind = (params.get("kind") as "experiment" | "run" | null) ?? "experiment";
  const options = useQuery(trpc.experiments.list.queryOptions({ status: "ALL", limit: 200 }));
  const diff = useQuery({ ...trpc.experiments.diff.queryOptions({ a, b, kind }), enabled: !!a && !!b });
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(params.toString());
    next.set(k, v);
    router.replace(`/experiments/diff?${next}`);
  };
  const picker = (k: "a" | "b", value: string) => (
    <select
      aria-label={`Experiment ${k.toUpperCase()}`}
      value={value}
      onChange={(e) => set(k, e.target.value)}
      style={{ maxWidth: 320 }}
    >
      <option value="">Choose…</option>
      {options.data?.items.map((e) => (
        <option key={e.id} value={e.id}>
          {e.name} ({e.slug})
        </option>
      ))}
    </select>
  );
  return (
    <>
      <h1>Compare configs</h1>
      <div className="toolbar">
        {picker("a", a)} <span>vs</span> {picker("b", b)}
      </div>
      {diff.error && <div className="form-error">{diff.error.message}</div>}
      {diff.data &&
        (diff.data.changes.length === 0 ? (
          <div className="empty">Identical configurations.</div>
        ) : (
          <table className="list">
            <thead>
              <tr>
                <th>Setting</th>
                <th>{diff.data.a.label}</th>
                <th>{diff.data.b.label}</th>
              </tr>
            </thead>
            <tbody>
              {diff.data.changes.map((c) => (
                <tr key={c.path}>
                  <td className="mono">{c.path}</td>
                  <td className="mono diff-before">{JSON.stringify(c.before) ?? "—"}</td>
                  <td className="mono diff-after">{JSON.stringify(c.after) ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </>
  );
}

export default function DiffPage() {
  return (
    <Suspense>
      <Diff />
    </Suspense>
  );
}
