"use client";
// Environments: per experiment, each environment's sandbox (provider, limits, tools; a remote pool's protocol
// and URLs; a harness) with its health and its episodes by status; create one; launch n episodes of every task of a task set's split (one GRPO group per
// task) for the episode worker, or keep launching train groups while training (StandingLaunches.tsx). Live: refreshed every 5 s.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Suspense, useState } from "react";
import { z } from "zod";
import type { EnvironmentCreateInput } from "../../../server/environments/schemas";
import { useTRPC } from "../../_lib/trpc";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";
import { useSearchState } from "../../_ui/useSearchState";
import { ExperimentSelect } from "../_components/ExperimentSelect";
import { GuardedButton } from "../_components/Permission";
import { StandingLaunches } from "./StandingLaunches";
import { TrackJobCard } from "./TrackJob";

export default function EnvironmentsPage() {
  return (
    <Suspense fallback={<div className="muted">Loading…</div>}>
      <Environments />
    </Suspense>
  );
}

// Listed here, typed by the server's schema: a value import would pull the sandbox code into the browser bundle.
type Tool = z.input<typeof EnvironmentCreateInput>["tools"] extends (infer T)[] | undefined ? T : never;
const TOOLS: readonly Tool[] = ["bash", "calc", "lookup"];
type Create = z.input<typeof EnvironmentCreateInput>;
type Provider = NonNullable<Create["provider"]>;
type Protocol = NonNullable<Create["pool"]>["protocol"];
const PROVIDERS: readonly Provider[] = ["local-bwrap", "docker", "remote-pool"];
const PROTOCOLS: readonly Protocol[] = ["terminal", "gui", "swe"];

/** What runs the episodes: the provider, a pool's protocol and URLs, a harness's agent. */
function runnerOf(e: { provider: string; pool: unknown; harness: unknown }): string {
  const pool = e.pool as { protocol: string; urls: string[] } | null;
  const harness = e.harness as { kind: string; definition?: { name: string } } | null;
  if (pool) return `${e.provider} (${pool.protocol}: ${pool.urls.join(", ")})`;
  if (harness) return `${e.provider} · harness ${harness.definition?.name ?? harness.kind}`;
  return e.provider;
}

const Search = z.object({ experimentId: z.string().optional(), environmentId: z.string().optional() });

function Environments() {
  const trpc = useTRPC();
  const [search, set] = useSearchState(Search);
  const experimentId = search.experimentId ?? "";
  const list = useQuery({
    ...trpc.environments.list.queryOptions({ experiment: experimentId }),
    enabled: !!experimentId,
  });
  return (
    <>
      <h1>Environments</h1>
      <p className="muted">
        An environment is where agent episodes run: the sandbox provider and its limits for terminal tasks (
        <code>bash</code>), and the in-process tools of tool-call tasks (<code>calc</code>, <code>lookup</code>). Launch
        n episodes per task to form GRPO groups; the episode worker runs them through the recording proxy.
      </p>
      <div className="filters">
        <ExperimentSelect
          value={experimentId}
          onChange={(id) => set({ experimentId: id, environmentId: null })}
          allowAll={false}
        />
      </div>
      {!experimentId && <div className="empty">Choose an experiment.</div>}
      {list.error && <div className="form-error">{list.error.message}</div>}
      {experimentId && (
        <>
          <div className="card" data-testid="environments">
            {list.data?.length ? (
              <table className="list">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Provider</th>
                    <th>Tools</th>
                    <th>Limits</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.map((e) => {
                    const l = e.limits as Record<string, number>;
                    return (
                      <tr
                        key={e.id}
                        className={e.id === search.environmentId ? "selected" : undefined}
                        onClick={() => set({ environmentId: e.id })}
                        style={{ cursor: "pointer" }}
                      >
                        <td>{e.name}</td>
                        <td>{runnerOf(e)}</td>
                        <td>{(e.tools as string[]).join(", ")}</td>
                        <td className="muted">
                          {l.wallSeconds}s wall · {l.cpuSeconds}s CPU · {l.memoryMb} MiB · {l.pids} pids · network{" "}
                          {e.network}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            ) : (
              <div className="empty">No environment yet.</div>
            )}
          </div>
          {search.environmentId && <EnvironmentDetail id={search.environmentId} experimentId={experimentId} />}
          <CreateEnvironment experimentId={experimentId} />
        </>
      )}
      <TrackJobCard />
    </>
  );
}

const fmt = (x: number | null) => (x === null ? "—" : x.toFixed(2));
const ms = (x: number | null) => (x === null ? "—" : `${Math.round(x)} ms`);

function EnvironmentDetail({ id, experimentId }: { id: string; experimentId: string }) {
  const trpc = useTRPC();
  const env = useQuery({ ...trpc.environments.get.queryOptions({ id }), refetchInterval: 5000 });
  const sets = useQuery(trpc.taskSets.list.queryOptions({ experiment: experimentId }));
  const launch = useAction(trpc.episodes.launch.mutationOptions(), { invalidate: [trpc.environments.pathKey()] });
  const [form, setForm] = useState({
    taskSetId: "",
    split: "train" as "train" | "heldout" | "all",
    n: 8,
    maxSteps: 10,
    estimator: "grpo" as "grpo" | "step_wise",
    prm: false,
    maxTokens: "",
  });
  const [launched, setLaunched] = useState<{ launchId: string; episodes: number } | null>(null);
  const d = env.data;
  if (!d) return env.error ? <div className="form-error">{env.error.message}</div> : null;
  const taskSetId = form.taskSetId || sets.data?.[0]?.id || "";
  return (
    <div className="card" data-testid="environment-detail">
      <h2 style={{ marginTop: 0 }}>{d.name}</h2>
      <dl className="kv">
        <dt>Sandbox</dt>
        <dd data-testid="environment-health">
          {d.health.ok ? `ok: ${d.health.detail}` : `unavailable: ${d.health.reason}`}
        </dd>
        <dt>Episodes</dt>
        <dd data-testid="environment-episodes">
          {d.episodes.QUEUED} queued · {d.episodes.RUNNING} running ({d.activeLeases} holding a lease) ·{" "}
          {d.episodes.DONE} done · {d.episodes.FAILED} failed ·{" "}
          <Link href={`/episodes?experimentId=${experimentId}&environmentId=${d.id}`}>browse</Link>
        </dd>
        <dt>Last {d.recent.episodes} ended</dt>
        <dd data-testid="environment-health-stats">
          {d.recent.failed} failed · truncated {fmt(d.recent.truncationRatio)} · command p50 {ms(d.recent.execP50Ms)} ·
          p95 {ms(d.recent.execP95Ms)} · time waiting on tools {fmt(d.recent.toolWaitShare)}
        </dd>
        <dt>Lease latency</dt>
        <dd data-testid="environment-lease-latency">
          allocate p50 {ms(d.recent.allocateP50Ms)} · p95 {ms(d.recent.allocateP95Ms)} · evaluate p50{" "}
          {ms(d.recent.evaluateP50Ms)} · p95 {ms(d.recent.evaluateP95Ms)}
        </dd>
      </dl>
      <h3>Launch episodes</h3>
      <ErrorBanner error={launch.error} />
      <div className="toolbar">
        <label className="field">
          <span>Task set</span>
          <select
            aria-label="Task set"
            value={taskSetId}
            onChange={(e) => setForm({ ...form, taskSetId: e.target.value })}
          >
            {!sets.data?.length && <option value="">No task set: import one</option>}
            {sets.data?.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} (v{s.latestVersion})
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Split</span>
          <select
            aria-label="Split"
            value={form.split}
            onChange={(e) => setForm({ ...form, split: e.target.value as typeof form.split })}
          >
            <option value="train">train</option>
            <option value="heldout">held-out</option>
            <option value="all">all</option>
          </select>
        </label>
        <label className="field">
          <span>Episodes per task</span>
          <input
            aria-label="Episodes per task"
            type="number"
            min={1}
            max={64}
            value={form.n}
            onChange={(e) => setForm({ ...form, n: Number(e.target.value) })}
          />
        </label>
        <label className="field">
          <span>Step budget</span>
          <input
            aria-label="Step budget"
            type="number"
            min={1}
            max={64}
            value={form.maxSteps}
            onChange={(e) => setForm({ ...form, maxSteps: Number(e.target.value) })}
          />
        </label>
        <label className="field">
          <span>Token budget</span>
          <input
            aria-label="Token budget"
            type="number"
            min={1}
            placeholder="none"
            value={form.maxTokens}
            onChange={(e) => setForm({ ...form, maxTokens: e.target.value })}
          />
        </label>
        <label className="field">
          <span>Estimator</span>
          <select
            aria-label="Estimator"
            value={form.estimator}
            onChange={(e) => setForm({ ...form, estimator: e.target.value as typeof form.estimator })}
          >
            <option value="grpo">grpo</option>
            <option value="step_wise">step_wise</option>
          </select>
        </label>
        <label style={{ display: "flex", gap: 4, alignItems: "center" }}>
          <input type="checkbox" checked={form.prm} onChange={(e) => setForm({ ...form, prm: e.target.checked })} />
          Step PRM (judge votes per step)
        </label>
        <GuardedButton
          perm="write"
          disabled={launch.pending || !taskSetId}
          onClick={async () => {
            const { maxTokens, ...rest } = form;
            const r = await launch.run({
              ...rest,
              environmentId: d.id,
              taskSetId,
              ...(maxTokens ? { maxTokens: Number(maxTokens) } : {}),
            });
            if (r.ok) setLaunched(r.data);
          }}
        >
          Launch
        </GuardedButton>
      </div>
      {launched && (
        <p data-testid="launched">
          Queued {launched.episodes} episodes:{" "}
          <Link href={`/episodes?experimentId=${experimentId}&launchId=${launched.launchId}`}>
            launch {launched.launchId}
          </Link>
        </p>
      )}
      <StandingLaunches
        experimentId={experimentId}
        environmentId={d.id}
        settings={{
          taskSetId,
          n: form.n,
          maxSteps: form.maxSteps,
          estimator: form.estimator,
          prm: form.prm,
          ...(form.maxTokens ? { maxTokens: Number(form.maxTokens) } : {}),
        }}
      />
    </div>
  );
}

function CreateEnvironment({ experimentId }: { experimentId: string }) {
  const trpc = useTRPC();
  const create = useAction(trpc.environments.create.mutationOptions(), {
    invalidate: [trpc.environments.pathKey()],
  });
  const [name, setName] = useState("");
  const [tools, setTools] = useState<Tool[]>(["bash"]);
  const [wallSeconds, setWallSeconds] = useState(120);
  const [provider, setProvider] = useState<Provider>("local-bwrap");
  const [protocol, setProtocol] = useState<Protocol>("terminal");
  const [urls, setUrls] = useState("");
  const [harness, setHarness] = useState<"none" | "openclaw">("none");
  return (
    <div className="card" data-testid="environment-create">
      <h2 style={{ marginTop: 0 }}>New environment</h2>
      <ErrorBanner error={create.error} />
      <div className="toolbar">
        <label className="field">
          <span>Name</span>
          <input aria-label="Name" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        {TOOLS.map((t) => (
          <label key={t} style={{ display: "flex", gap: 4, alignItems: "center" }}>
            <input
              type="checkbox"
              checked={tools.includes(t)}
              onChange={(e) => setTools(e.target.checked ? [...tools, t] : tools.filter((x) => x !== t))}
            />
            {t}
          </label>
        ))}
        <label className="field">
          <span>Provider</span>
          <select aria-label="Provider" value={provider} onChange={(e) => setProvider(e.target.value as Provider)}>
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        {provider === "remote-pool" && (
          <>
            <label className="field">
              <span>Pool protocol</span>
              <select
                aria-label="Pool protocol"
                value={protocol}
                onChange={(e) => setProtocol(e.target.value as Protocol)}
              >
                {PROTOCOLS.map((p) => (
                  <option key={p} value={p}>
                    {p}
                  </option>
                ))}
              </select>
            </label>
            <label className="field">
              <span>Pool URLs (one per line)</span>
              <textarea
                aria-label="Pool URLs"
                rows={2}
                placeholder="http://pool-1:18080"
                value={urls}
                onChange={(e) => setUrls(e.target.value)}
              />
            </label>
          </>
        )}
        {provider === "local-bwrap" && (
          <label className="field">
            <span>Agent</span>
            <select
              aria-label="Agent"
              value={harness}
              onChange={(e) => setHarness(e.target.value as "none" | "openclaw")}
            >
              <option value="none">our agent loop</option>
              <option value="openclaw">stock OpenClaw (harness)</option>
            </select>
          </label>
        )}
        <label className="field">
          <span>Wall seconds per command</span>
          <input
            aria-label="Wall seconds per command"
            type="number"
            min={1}
            value={wallSeconds}
            onChange={(e) => setWallSeconds(Number(e.target.value))}
          />
        </label>
        <GuardedButton
          perm="write"
          disabled={create.pending}
          onClick={async () => {
            const r = await create.run({
              experiment: experimentId,
              name,
              tools,
              limits: { wallSeconds },
              provider,
              ...(provider === "remote-pool"
                ? {
                    pool: {
                      protocol,
                      urls: urls
                        .split("\n")
                        .map((u) => u.trim())
                        .filter(Boolean),
                    },
                  }
                : {}),
              ...(provider === "local-bwrap" && harness === "openclaw" ? { harness: { kind: "openclaw" } } : {}),
            });
            if (r.ok) setName("");
          }}
        >
          Create
        </GuardedButton>
      </div>
    </div>
  );
}
