"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, useRouter } from "next/navigation";
import { useTRPC } from "../../../_lib/trpc";
import { ErrorBanner } from "../../../_ui/ErrorBanner";
import { useAction } from "../../../_ui/useAction";
import { RunLaunchPreview } from "../_components/RunLaunchPreview";
import { RunLogs } from "../_components/RunLogs";
import { ConnectAgent } from "../_components/ConnectAgent";
import { PolicyVersions } from "../_components/PolicyVersions";
import { LearningVerdict } from "../_components/LearningVerdict";
import { GuardedButton, GuardedLink } from "../../_components/Permission";

export default function ExperimentDetailPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const router = useRouter();
  const exp = useQuery(trpc.experiments.get.queryOptions({ id }));
  const runs = useQuery({
    ...trpc.runs.list.queryOptions({ experimentId: exp.data?.id, limit: 20 }),
    enabled: !!exp.data,
    refetchInterval: 3000,
  });
  // Training on a judge that humans disagree with is wasted compute: say so where the run is started.
  const agreement = useQuery({
    ...trpc.evaluation.agreement.queryOptions({ experimentId: exp.data?.id ?? "", disagreements: 0 }),
    enabled: !!exp.data,
  });
  const refresh = { invalidate: [trpc.experiments.pathKey(), trpc.runs.pathKey()] };
  const start = useAction(trpc.runs.start.mutationOptions(), refresh);
  const runAct = useAction(trpc.runs.act.mutationOptions(), refresh);
  const clone = useAction(trpc.experiments.clone.mutationOptions(), refresh);
  const archive = useAction(trpc.experiments.archive.mutationOptions(), refresh);
  const del = useAction(trpc.experiments.delete.mutationOptions(), refresh);
  const actions = [start, runAct, clone, archive, del];
  // One banner for the page's actions: the latest one's error (starting another clears the rest).
  const error = actions.find((a) => a.error)?.error;
  const act = (fn: () => Promise<unknown>) => () => {
    for (const a of actions) a.clear();
    void fn();
  };

  if (exp.error) return <div className="form-error">{exp.error.message}</div>;
  if (!exp.data) return <div className="muted">Loading…</div>;
  const e = exp.data;
  const c = e.config;
  const perUser = c.personalization === "per-user";
  // On the embedded trainer each user's adapter steps with the per-user settings (personalization/step.ts), not the
  // shared method and hyperparameters; GPU trainers run their own step per user with the shared ones.
  const adaptersOwnStep = perUser && c.trainer.backend === "embedded";
  const live = e.activeRun;
  const archived = e.status === "ARCHIVED";
  const held = (e.counts?.runs ?? 0) + (e.counts?.sessions ?? 0) + (e.counts?.turns ?? 0);
  const q = `experimentId=${e.id}`;

  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>{e.name}</h1>
        <span className={`badge ${e.status}`}>{e.status.toLowerCase()}</span>
        <span className="spacer" />
        {!archived && (
          <GuardedLink perm="write" href={`/experiments/${e.id}/edit`}>
            Edit
          </GuardedLink>
        )}
        <GuardedButton
          perm="write"
          onClick={act(async () => {
            const slug = prompt("Slug of the copy (the proxy's model name)", `${e.slug}-copy`);
            if (slug === null) return;
            const n = await clone.run({ id: e.id, name: `${e.name} (copy)`, slug: slug.trim() || undefined });
            if (n.ok) router.push(`/experiments/${n.data.id}`);
          })}
        >
          Clone
        </GuardedButton>
        <GuardedButton perm="write" onClick={act(() => archive.run({ id: e.id, archived: !archived }))}>
          {archived ? "Unarchive" : "Archive"}
        </GuardedButton>
        <GuardedButton
          perm="write"
          className="danger"
          disabled={held > 0}
          title={
            held > 0
              ? `Holds data (${e.counts?.runs ?? 0} runs, ${e.counts?.sessions ?? 0} sessions, ${e.counts?.turns ?? 0} turns): archive it instead`
              : undefined
          }
          onClick={act(async () => {
            if (!confirm(`Delete ${e.slug}? This cannot be undone.`)) return;
            if ((await del.run({ id: e.id })).ok) router.push("/experiments");
          })}
        >
          Delete
        </GuardedButton>
      </div>
      <ErrorBanner error={error} />
      {e.description && <p className="muted">{e.description}</p>}
      {agreement.data?.warning && (
        <div className="form-error" role="status">
          {agreement.data.warning} <Link href={`/evaluation?${q}`}>Judge–human agreement</Link>
        </div>
      )}
      <nav className="links" aria-label="This experiment's data">
        <Link className="button" href={`/metrics?${q}`}>
          Metrics
        </Link>
        <Link className="button" href={`/trajectories?${q}`}>
          Trajectories
        </Link>
        <Link className="button" href={`/sessions?${q}`}>
          Sessions
        </Link>
        <Link className="button" href={`/experiments/${e.id}/users`}>
          Users
        </Link>
        <Link className="button" href={`/playground?${q}`}>
          Playground
        </Link>
        <Link className="button" href={`/review?${q}`}>
          Review queues
        </Link>
        <Link className="button" href="/metrics?view=compare">
          Compare runs
        </Link>
      </nav>

      <div className="card">
        <div className="toolbar">
          <h3 style={{ margin: 0 }}>Runs</h3>
          <span className="spacer" />
          {live ? (
            <>
              {live.status === "RUNNING" && (
                <GuardedButton perm="write" onClick={act(() => runAct.run({ id: live.id, action: "pause" }))}>
                  Pause
                </GuardedButton>
              )}
              {live.status === "PAUSED" && (
                <GuardedButton perm="write" onClick={act(() => runAct.run({ id: live.id, action: "resume" }))}>
                  Resume
                </GuardedButton>
              )}
              <GuardedButton
                perm="write"
                className="danger"
                onClick={act(async () => {
                  if (!confirm(`Stop run #${live.number}? Training ends; the versions it produced stay.`)) return;
                  await runAct.run({ id: live.id, action: "stop" });
                })}
              >
                Stop run #{live.number}
              </GuardedButton>
            </>
          ) : (
            !archived && (
              <GuardedButton perm="write" className="primary" onClick={act(() => start.run({ experimentId: e.id }))}>
                Start run
              </GuardedButton>
            )
          )}
        </div>
        <table className="list">
          <thead>
            <tr>
              <th>#</th>
              <th>Status</th>
              <th>Trainer</th>
              <th>Step</th>
              <th>Started</th>
              <th>Ended</th>
              <th>Message</th>
            </tr>
          </thead>
          <tbody>
            {runs.data?.items.map((r) => (
              <tr key={r.id}>
                <td>{r.number}</td>
                <td>
                  <span className={`badge ${r.status}`}>{r.status.toLowerCase()}</span>
                </td>
                <td>{r.trainerBackend}</td>
                <td>{r.lastStep}</td>
                <td className="muted">{r.startedAt ? new Date(r.startedAt).toLocaleString() : "—"}</td>
                <td className="muted">{r.endedAt ? new Date(r.endedAt).toLocaleString() : "—"}</td>
                <td className="muted">
                  {r.statusMessage ?? ""}
                  {r.rolloutUrlChangedAt && (
                    // A trainer moved this run's traffic: say where from and when, as the audit log does.
                    <div data-testid="rollout-url-change">
                      rollout URL changed {new Date(r.rolloutUrlChangedAt).toLocaleString()}:{" "}
                      {r.rolloutUrlPrevious ?? "none"} → {r.rolloutUrl ?? "none"}
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {runs.data && !runs.data.items.length && <div className="empty">No runs yet.</div>}
      </div>
      <LearningVerdict experimentId={e.id} />
      <PolicyVersions experimentId={e.id} perUser={perUser} />
      {runs.data?.items[0] && <RunLogs run={runs.data.items[0]} />}
      {!live && !archived && <RunLaunchPreview experimentId={e.id} />}
      <ConnectAgent experimentId={e.id} slug={e.slug} />

      <div className="card">
        <h3>Configuration</h3>
        <dl className="kv">
          <dt>Slug / proxy model</dt>
          <dd className="mono">{e.slug}</dd>
          <dt>Method</dt>
          <dd>
            {adaptersOwnStep
              ? "per-user adapters: policy gradient with hindsight demonstrations (per-user settings below)"
              : c.method}
          </dd>
          <dt>Policy</dt>
          <dd>
            {c.policy.kind === "embedded"
              ? `embedded (${c.policy.checkpoint})`
              : `${c.policy.kind} ${c.policy.model} @ ${c.policy.baseUrl}`}
          </dd>
          <dt>Judge</dt>
          <dd>
            {c.judge.backend.kind === "heuristic"
              ? "heuristic (embedded, rule-based)"
              : c.judge.backend.kind === "custom"
                ? `custom reward ${c.judge.backend.modulePath}`
                : `${c.judge.backend.kind} ${c.judge.backend.model}`}{" "}
            · m={c.judge.votes} · T={c.judge.temperature}
          </dd>
          <dt>Trainer</dt>
          <dd>{c.trainer.backend}</dd>
          {!adaptersOwnStep && (
            <>
              <dt>Hyperparameters</dt>
              <dd className="mono">
                lr {c.hyper.lr} · batch {c.hyper.batchSize} · clip {c.hyper.epsClip}/{c.hyper.epsClipHigh} · KL{" "}
                {c.hyper.klCoef} · w_opd {c.hyper.wOpd} · w_rl {c.hyper.wRl} · max staleness {c.hyper.maxStaleness} (
                {c.hyper.stalePolicy})
              </dd>
            </>
          )}
          {!perUser && (
            <>
              <dt>LoRA</dt>
              <dd>{c.lora.enabled ? `rank ${c.lora.rank}, alpha ${c.lora.alpha}` : "off"}</dd>
            </>
          )}
          {perUser && (
            <>
              <dt>Per-user adapters</dt>
              <dd className="mono">
                rank {c.perUser.rank} · alpha {c.perUser.alpha} ·{" "}
                {adaptersOwnStep ? (
                  <>
                    lr {c.perUser.lr} · grad bound {c.perUser.gradClip} · hindsight {c.perUser.hindsightSamples}×
                    {c.perUser.hindsightWeight} toward the{" "}
                    {c.perUser.hindsightTarget === "teacher"
                      ? `teacher's distribution at τ ${c.perUser.hindsightTemperature}`
                      : "sampled tokens"}
                    {c.perUser.hindsightFocus === "hint" ? ", focused where the hint acts" : ""}
                    {c.perUser.stylePrompts > 0
                      ? `, and on up to ${c.perUser.stylePrompts} of the base's own prompts per step`
                      : ""}{" "}
                    ·{" "}
                  </>
                ) : (
                  `each user's step is ${c.trainer.backend}'s ${c.method} step with the hyperparameters above · `
                )}
                {c.perUser.minSamples} samples per step · held out {c.perUser.heldOutFraction} · new users served{" "}
                {c.perUser.newUsers === "shared" ? "a shared adapter trained on everyone" : "the base"}
              </dd>
            </>
          )}
          <dt>Secrets set</dt>
          <dd>{e.secretsSet.length ? e.secretsSet.join(", ") : "none"}</dd>
          <dt>Data</dt>
          <dd>
            {e.counts?.sessions ?? 0} sessions · {e.counts?.turns ?? 0} turns · {e.counts?.runs ?? 0} runs
          </dd>
        </dl>
        <details style={{ marginTop: 12 }}>
          <summary className="muted">Full config (JSON)</summary>
          <pre>{JSON.stringify(c, null, 2)}</pre>
        </details>
      </div>
    </>
  );
}
