"use client";
// The Users view of a per-user experiment: each end user's served adapter version, samples, last training,
// storage and reward trend (mean reward of each version's training samples, and the gate's held-out scores),
// with a per-user rollback, training on demand, deletion, and base vs the user's adapter side by side on a few of
// their held-out prompts (Compare).
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useTRPC } from "../../../../_lib/trpc";
import { ErrorBanner } from "../../../../_ui/ErrorBanner";
import { useAction } from "../../../../_ui/useAction";
import { GuardedButton } from "../../../_components/Permission";
import { EVERYONE } from "../../../../../server/config/experimentConfig";
import { RewardCurves } from "./RewardCurves";

type Point = { version: number; state: string; meanReward: number | null };

/** Mean training reward per version (−1…1), as a small inline chart; promoted versions are filled. */
function RewardTrend({ points }: { points: Point[] }) {
  const w = 120;
  const h = 28;
  const pts = points.filter((p) => p.meanReward !== null);
  if (!pts.length) return <span className="muted">—</span>;
  const x = (i: number) => (pts.length === 1 ? w / 2 : (i / (pts.length - 1)) * (w - 6) + 3);
  const y = (r: number) => h - 3 - ((r + 1) / 2) * (h - 6);
  return (
    <svg
      width={w}
      height={h}
      role="img"
      aria-label={`reward trend ${pts.map((p) => p.meanReward!.toFixed(2)).join(", ")}`}
    >
      <line x1={0} x2={w} y1={y(0)} y2={y(0)} stroke="currentColor" opacity={0.2} />
      <polyline fill="none" stroke="currentColor" points={pts.map((p, i) => `${x(i)},${y(p.meanReward!)}`).join(" ")} />
      {pts.map((p, i) => (
        <circle
          key={p.version}
          cx={x(i)}
          cy={y(p.meanReward!)}
          r={2.5}
          fill={p.state === "PROMOTED" || p.state === "SUPERSEDED" ? "currentColor" : "none"}
          stroke="currentColor"
        >
          <title>{`v${p.version} ${p.state.toLowerCase()}: ${p.meanReward!.toFixed(2)}`}</title>
        </circle>
      ))}
    </svg>
  );
}

export default function ExperimentUsersPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const exp = useQuery(trpc.experiments.get.queryOptions({ id }));
  const users = useQuery({
    ...trpc.endUsers.list.queryOptions({ experimentId: exp.data?.id ?? "" }),
    enabled: !!exp.data,
    refetchInterval: 5000,
  });
  const refresh = { invalidate: [trpc.endUsers.pathKey()] };
  const rollback = useAction(trpc.endUsers.rollback.mutationOptions(), refresh);
  const train = useAction(trpc.endUsers.train.mutationOptions(), refresh);
  const del = useAction(trpc.endUsers.delete.mutationOptions(), refresh);
  const compare = useMutation(trpc.endUsers.compare.mutationOptions());
  const error = [rollback, train, del].find((a) => a.error)?.error ?? compare.error ?? users.error;

  if (exp.error) return <div className="form-error">{exp.error.message}</div>;
  if (!exp.data) return <div className="muted">Loading…</div>;
  const e = exp.data;
  const perUser = e.config.personalization === "per-user";
  // On SGLang/vLLM (or Tinker's endpoint) the run's trainer trains the users' adapters from per-user leases.
  const onEngine = perUser && e.config.policy.kind !== "embedded";
  // The shared adapter new users are served (perUser.newUsers "shared"), trained on everyone's turns: its own row.
  const everyone = users.data?.find((u) => u.endUserId === EVERYONE) ?? null;
  const newUsersShared = perUser && e.config.perUser.newUsers === "shared";
  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>Users · {e.name}</h1>
        <span className="spacer" />
        <Link className="button" href={`/experiments/${e.id}`}>
          Experiment
        </Link>
        {perUser && !onEngine && (
          <GuardedButton perm="write" className="primary" onClick={() => void train.run({ experimentId: e.id })}>
            Train due users
          </GuardedButton>
        )}
      </div>
      <ErrorBanner error={error} />
      <p className="muted">
        {onEngine
          ? `Each user named by an identity key (X-User-Id) has an adapter of their own on the shared base, trained by the run's ${e.config.trainer.backend} trainer on their samples only. ${e.config.trainer.backend === "tinker" ? "Not gated: a version serves as soon as the trainer acknowledges it (the bridge cannot score held-out replies)" : "A version is a candidate until the engine scores it on the user's held-out turns against the served one (the per-user gate)"}; roll a user back here.`
          : perUser
            ? `Each user named by an identity key (X-User-Id) has an adapter of their own on the shared base, trained on their samples only and served once it passes their gate. ${newUsersShared ? "Until then a user is served the shared adapter (everyone), trained on every user's turns." : "Until then a user is served the base."}`
            : "This experiment serves one shared policy (personalization: shared): users are listed, but nobody has an adapter of their own."}
      </p>
      <table className="list" aria-label="End users">
        <thead>
          <tr>
            <th>User</th>
            <th>Served</th>
            <th>Versions</th>
            <th>Turns (judged)</th>
            <th>Samples trained</th>
            <th>Last trained</th>
            <th>Reward trend</th>
            <th title="Judged sessions before the first three in a row whose first reply the user liked">
              Sessions until stable
            </th>
            <th>Storage</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {users.data?.map((u) => (
            <tr key={u.endUserId}>
              <td className="mono">
                {u === everyone ? (
                  <span title="The shared adapter users without their own are served, trained on every user's turns">
                    everyone (new users)
                  </span>
                ) : (
                  <Link href={`/trajectories?experimentId=${e.id}&endUserId=${encodeURIComponent(u.endUserId)}`}>
                    {u.endUserId}
                  </Link>
                )}
              </td>
              <td>
                {u.servedVersion !== null ? (
                  `v${u.servedVersion}`
                ) : u !== everyone && newUsersShared && everyone?.servedVersion != null ? (
                  <span className="muted">shared v{everyone.servedVersion}</span>
                ) : (
                  <span className="muted">base</span>
                )}
              </td>
              <td>{u.versions}</td>
              <td>
                {u.turns} ({u.judgedTurns})
              </td>
              <td>{u.trainedSamples}</td>
              <td className="muted">{u.lastTrainedAt ? new Date(u.lastTrainedAt).toLocaleString() : "—"}</td>
              <td>
                <RewardTrend points={u.trend} />
              </td>
              <td>{u.sessionsUntilStable ?? <span className="muted">not yet ({u.sessions} sessions)</span>}</td>
              <td className="muted">{(u.storageBytes / 1024).toFixed(1)} KiB</td>
              <td>
                {perUser && e.config.policy.kind === "embedded" && (
                  <>
                    <button
                      type="button"
                      disabled={u.servedVersion === null || u === everyone || compare.isPending}
                      title="Base vs this user's adapter on a few of their held-out prompts"
                      onClick={() => compare.mutate({ experimentId: e.id, endUserId: u.endUserId })}
                    >
                      Compare
                    </button>{" "}
                  </>
                )}
                <GuardedButton
                  perm="write"
                  disabled={u.servedVersion === null}
                  onClick={() => void rollback.run({ experimentId: e.id, endUserId: u.endUserId })}
                >
                  Roll back
                </GuardedButton>{" "}
                {u !== everyone && (
                  <GuardedButton
                    perm="write"
                    className="danger"
                    onClick={() => {
                      if (!confirm(`Delete ${u.endUserId}'s adapters, turns and samples? This cannot be undone.`))
                        return;
                      void del.run({ experimentId: e.id, endUserId: u.endUserId });
                    }}
                  >
                    Delete
                  </GuardedButton>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {compare.isPending && <div className="muted">Generating base and adapter replies…</div>}
      {compare.data && (
        <section aria-label="Base vs adapter">
          <h2>
            {compare.data.endUserId}: base vs v{compare.data.version}
          </h2>
          <p className="muted">
            {compare.data.heldOut
              ? "Greedy replies on this user's held-out prompts (never trained on)."
              : "This user has no held-out turns (heldOutFraction 0): their newest prompts, which the adapter trained on."}
          </p>
          <table className="list" aria-label="Side by side">
            <thead>
              <tr>
                <th>Prompt</th>
                <th>Base</th>
                <th>Adapter v{compare.data.version}</th>
              </tr>
            </thead>
            <tbody>
              {compare.data.pairs.map((pair) => (
                <tr key={pair.turnId}>
                  <td>{pair.prompt}</td>
                  <td style={{ whiteSpace: "pre-wrap" }}>{pair.base}</td>
                  <td style={{ whiteSpace: "pre-wrap" }}>{pair.adapter}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {users.data && !users.data.length && (
        <div className="empty">No end users yet: send X-User-Id with a key that has the identity scope.</div>
      )}
      <RewardCurves experimentId={e.id} />
    </>
  );
}
