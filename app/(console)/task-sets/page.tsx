"use client";
// Task sets: per experiment, each versioned set (tool-call JSONL or Harbor terminal tasks), a version's tasks
// with their train/held-out split and oracle status, pass@1 per task from the episodes run on it, the oracle
// run, and the import (a 400 names the bad file and field).
import { useQuery } from "@tanstack/react-query";
import { Suspense, useState } from "react";
import { z } from "zod";
import { useTRPC } from "../../_lib/trpc";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";
import { useSearchState } from "../../_ui/useSearchState";
import { ExperimentSelect } from "../_components/ExperimentSelect";
import { GuardedButton } from "../_components/Permission";

export default function TaskSetsPage() {
  return (
    <Suspense fallback={<div className="muted">Loading…</div>}>
      <TaskSets />
    </Suspense>
  );
}

const Search = z.object({ experimentId: z.string().optional(), taskSetId: z.string().optional() });

function TaskSets() {
  const trpc = useTRPC();
  const [search, set] = useSearchState(Search);
  const experimentId = search.experimentId ?? "";
  const sets = useQuery({
    ...trpc.taskSets.list.queryOptions({ experiment: experimentId }),
    enabled: !!experimentId,
  });
  return (
    <>
      <h1>Task sets</h1>
      <p className="muted">
        Versioned tasks for agent episodes: tool-call tasks as JSONL (a prompt, the expected answer, the tools),
        terminal tasks in the Harbor layout (<code>task.toml</code>, <code>instruction.md</code>,{" "}
        <code>tests/test.sh</code>, optional <code>solution/</code>) as a tar or tar.gz. The train/held-out split is
        fixed by the version&apos;s seed. The oracle run proves each verifier passes with the task&apos;s own solution
        and fails untouched.
      </p>
      <div className="filters">
        <ExperimentSelect
          value={experimentId}
          onChange={(id) => set({ experimentId: id, taskSetId: null })}
          allowAll={false}
        />
      </div>
      {!experimentId && <div className="empty">Choose an experiment.</div>}
      {sets.error && <div className="form-error">{sets.error.message}</div>}
      {experimentId && (
        <>
          <div className="card" data-testid="task-sets">
            {sets.data?.length ? (
              <table className="list">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Latest</th>
                  </tr>
                </thead>
                <tbody>
                  {sets.data.map((s) => (
                    <tr
                      key={s.id}
                      onClick={() => set({ taskSetId: s.id })}
                      className={s.id === search.taskSetId ? "selected" : undefined}
                      style={{ cursor: "pointer" }}
                    >
                      <td>
                        {s.name}
                        <div className="muted" style={{ fontSize: 11 }}>
                          {s.description}
                        </div>
                      </td>
                      <td>v{s.latestVersion}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <div className="empty">No task set yet.</div>
            )}
          </div>
          {search.taskSetId && <TaskSetDetail id={search.taskSetId} experimentId={experimentId} />}
          <ImportTaskSet experimentId={experimentId} />
        </>
      )}
    </>
  );
}

function TaskSetDetail({ id, experimentId }: { id: string; experimentId: string }) {
  const trpc = useTRPC();
  const ts = useQuery(trpc.taskSets.get.queryOptions({ id }));
  const episodes = useQuery({
    ...trpc.episodes.list.queryOptions({ experiment: experimentId, limit: 500, status: "DONE" }),
    refetchInterval: 5000,
  });
  const envs = useQuery(trpc.environments.list.queryOptions({ experiment: experimentId }));
  const oracle = useAction(trpc.taskSets.oracle.mutationOptions(), { invalidate: [trpc.taskSets.pathKey()] });
  const [environmentId, setEnvironmentId] = useState("");
  const d = ts.data;
  if (!d) return ts.error ? <div className="form-error">{ts.error.message}</div> : null;
  // pass@1 per task over its finished episodes (the latest 500 of the experiment): a reward ≥ 1 passes.
  const passes = new Map<string, { n: number; pass: number }>();
  for (const e of episodes.data ?? []) {
    const p = passes.get(e.taskId) ?? { n: 0, pass: 0 };
    passes.set(e.taskId, { n: p.n + 1, pass: p.pass + ((e.outcome ?? 0) >= 1 ? 1 : 0) });
  }
  const envId = environmentId || envs.data?.[0]?.id || "";
  return (
    <div className="card" data-testid="task-set-detail">
      <h2 style={{ marginTop: 0 }}>
        {d.name} v{d.version.version}
      </h2>
      <p className="muted">
        {d.version.taskCount} {d.version.format} tasks · split seed {d.version.splitSeed} · held-out fraction{" "}
        {d.version.heldOutFraction}
      </p>
      <ErrorBanner error={oracle.error} />
      <div className="toolbar">
        <label className="field">
          <span>Oracle environment</span>
          <select aria-label="Oracle environment" value={envId} onChange={(e) => setEnvironmentId(e.target.value)}>
            {envs.data?.map((e) => (
              <option key={e.id} value={e.id}>
                {e.name}
              </option>
            ))}
          </select>
        </label>
        <GuardedButton
          perm="write"
          disabled={oracle.pending || !envId}
          onClick={() => void oracle.run({ taskSetId: d.id, version: d.version.version, environmentId: envId })}
        >
          {oracle.pending ? "Running oracle…" : "Run oracle"}
        </GuardedButton>
      </div>
      <table className="list" data-testid="tasks">
        <thead>
          <tr>
            <th>Task</th>
            <th>Kind</th>
            <th>Split</th>
            <th>Oracle</th>
            <th>pass@1</th>
            <th>Instruction</th>
          </tr>
        </thead>
        <tbody>
          {d.tasks.map((t) => {
            const p = passes.get(t.id);
            return (
              <tr key={t.id}>
                <td>{t.key}</td>
                <td>{t.kind}</td>
                <td>{t.split}</td>
                <td className={t.oracleStatus === "flaky" || t.oracleStatus === "impossible" ? "form-error" : ""}>
                  {t.oracleStatus ?? "—"}
                </td>
                <td>{p ? `${(p.pass / p.n).toFixed(2)} (${p.n})` : "—"}</td>
                <td className="muted">{t.instruction.slice(0, 120)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function ImportTaskSet({ experimentId }: { experimentId: string }) {
  const trpc = useTRPC();
  const importer = useAction(trpc.taskSets.import.mutationOptions(), { invalidate: [trpc.taskSets.pathKey()] });
  const [name, setName] = useState("");
  const [heldOut, setHeldOut] = useState(0.2);
  const [imported, setImported] = useState<string | null>(null);
  async function onFile(file: File | undefined) {
    if (!file) return;
    setImported(null);
    const jsonl = /\.(jsonl|ndjson)$/i.test(file.name);
    const r = await importer.run({
      experiment: experimentId,
      name: name || file.name.replace(/\.(jsonl|ndjson|tar|tgz|tar\.gz)$/i, ""),
      format: jsonl ? "jsonl" : "harbor",
      ...(jsonl ? { text: await file.text() } : { archiveBase64: await base64Of(file) }),
      heldOutFraction: heldOut,
    });
    if (r.ok) setImported(`Imported v${r.data.version}: ${r.data.taskCount} tasks`);
  }
  return (
    <div className="card" data-testid="task-set-import">
      <h2 style={{ marginTop: 0 }}>Import</h2>
      <ErrorBanner error={importer.error} testId="import-error" />
      {imported && <p data-testid="imported">{imported}</p>}
      <div className="toolbar">
        <label className="field">
          <span>Set name</span>
          <input aria-label="Set name" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="field">
          <span>Held-out fraction</span>
          <input
            aria-label="Held-out fraction"
            type="number"
            step={0.05}
            min={0}
            max={0.9}
            value={heldOut}
            onChange={(e) => setHeldOut(Number(e.target.value))}
          />
        </label>
        <label className="button">
          Import JSONL or Harbor archive
          <input
            type="file"
            accept=".jsonl,.ndjson,.tar,.tgz,.gz"
            hidden
            data-testid="import-file"
            onChange={(e) => void onFile(e.target.files?.[0])}
          />
        </label>
      </div>
    </div>
  );
}
