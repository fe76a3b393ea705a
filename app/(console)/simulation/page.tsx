"use client";
// Simulated users and the demo: per experiment, start/stop its simulated users, their rate, concurrency,
// personas, seed and turn limit, what they are doing now, and whether the agent is learning (judged reward per
// policy version). One switch turns all simulated traffic off.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";
import { PERSONAS } from "../../../server/simulation/personas";
import { RewardChart, windowMeans } from "./RewardChart";
import { GuardedButton } from "../_components/Permission";

const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(2)}`;

type Item = NonNullable<ReturnType<typeof useSimulations>["data"]>["items"][number];
type Settings = Item["settings"];

function useSimulations() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.simulation.list.queryOptions(), refetchInterval: 2000 });
}

export default function SimulationPage() {
  const trpc = useTRPC();
  const list = useSimulations();
  const me = useQuery(trpc.me.queryOptions());
  const setGlobal = useAction(trpc.simulation.setGlobal.mutationOptions(), {
    invalidate: [trpc.simulation.list.queryKey()],
  });
  const isAdmin = me.data?.permissions.includes("admin") ?? false;
  const d = list.data;
  const on = d ? d.envEnabled && d.globalEnabled : false;

  const toggleGlobal = () => void setGlobal.run({ enabled: !d?.globalEnabled });

  return (
    <>
      <h1>Simulated users</h1>
      <p className="muted">
        Simulated users talk to an experiment&apos;s agent through the proxy, exactly like real clients (OpenAI client,
        session headers). Each persona has a hidden preference and reacts to every reply: an approval, or a concrete
        correction that the judge scores −1 and turns into an OPD hint. Watch the judged reward climb as the trainer
        serves new policy versions. Their sessions are marked
        <span className="badge" style={{ marginLeft: 6 }}>
          simulated
        </span>{" "}
        in the trajectory browser.
      </p>
      {list.error && <div className="form-error">{list.error.message}</div>}
      <ErrorBanner error={setGlobal.error} />
      {d && (
        <div className="card toolbar" data-testid="simulation-global">
          <strong>Simulated traffic</strong>
          <span className={`badge ${on ? "alive" : "stale"}`}>{on ? "on" : "off"}</span>
          <span className="muted">
            {!d.envEnabled
              ? "SIMULATE=0 in the workers' environment: nothing is simulated whatever the settings say."
              : d.globalEnabled
                ? "Experiments below simulate users when their own switch is on."
                : "Switched off for every experiment."}
          </span>
          <span className="spacer" />
          {isAdmin && d.envEnabled && (
            <button onClick={toggleGlobal} disabled={setGlobal.pending}>
              {d.globalEnabled ? "Turn all simulated traffic off" : "Turn simulated traffic on"}
            </button>
          )}
        </div>
      )}
      {d && !d.items.length && (
        <div className="empty">
          No active experiment. Create one, or restart with an empty database to get the demo.
        </div>
      )}
      {d?.items.map((item) => (
        <ExperimentSimulation key={item.experiment.id} item={item} globalOn={on} />
      ))}
    </>
  );
}

function ExperimentSimulation({ item, globalOn }: { item: Item; globalOn: boolean }) {
  const trpc = useTRPC();
  const update = useAction(trpc.simulation.update.mutationOptions(), {
    invalidate: [trpc.simulation.list.queryKey()],
  });
  const progress = useQuery({
    ...trpc.simulation.progress.queryOptions({ experimentId: item.experiment.id }),
    refetchInterval: 5000,
  });
  const e = item.experiment;
  const s = item.stats;
  const p = progress.data;
  const first = p ? windowMeans(p.versions, 5, "first").at(-1) : undefined;
  const all = p ? windowMeans(p.versions, 5, "all").at(-1) : undefined;
  // The base is version 0 itself, not the oldest of the recent versions the chart shows.
  const base = p?.base ?? null;

  const save = (change: Partial<Settings> & { enabled?: boolean }) =>
    void update.run({ experimentId: e.id, ...change });

  return (
    <div className="card" data-testid={`simulation-${e.slug}`}>
      <div className="toolbar" style={{ marginBottom: 8 }}>
        <strong>
          <Link href={`/experiments/${e.id}`}>{e.name}</Link>
        </strong>
        <span className="badge">{e.method}</span>
        {e.activeRun ? (
          <span className={`badge ${e.activeRun.status}`}>
            run #{e.activeRun.number} {e.activeRun.status.toLowerCase()}
          </span>
        ) : (
          <span className="badge">
            {p?.versionsOf === "adapter"
              ? "no run: each user's adapter trains on the per-user scheduler"
              : "no run: turns are recorded, nothing trains"}
          </span>
        )}
        <span className={`badge ${item.enabled && globalOn ? "alive" : ""}`}>
          {item.enabled ? (globalOn ? "users on" : "users on (traffic switched off)") : "users off"}
        </span>
        <span className="spacer" />
        <Link className="button" href={`/sessions?experimentId=${e.id}`}>
          Sessions
        </Link>
        <Link className="button" href={`/trajectories?experimentId=${e.id}`}>
          Trajectories
        </Link>
        <GuardedButton
          perm="write"
          className={item.enabled ? "danger" : "primary"}
          disabled={update.pending}
          onClick={() => save({ enabled: !item.enabled })}
        >
          {item.enabled ? "Stop users" : "Start users"}
        </GuardedButton>
      </div>
      <ErrorBanner error={update.error} max={Infinity} />
      <div className="sim-grid">
        <dl className="kv sim-kv">
          <dt>In conversation</dt>
          <dd data-testid="sim-active">{s ? s.active : "—"}</dd>
          <dt>Conversations</dt>
          <dd>{s ? s.sessions : "—"}</dd>
          <dt>Turns</dt>
          <dd>{s ? `${s.turns} (${s.turnsPerS.toFixed(2)}/s)` : "—"}</dd>
          <dt>Approved / corrected</dt>
          <dd>{s ? `${s.approvals} / ${s.corrections}` : "—"}</dd>
          <dt>Tool calls</dt>
          <dd>{s ? s.toolCalls : "—"}</dd>
          {s?.errors ? (
            <>
              <dt>Errors</dt>
              <dd className="field-error" title={s.lastError ?? ""}>
                {s.errors}: {s.lastError}
              </dd>
            </>
          ) : null}
          <dt>{p?.versionsOf === "adapter" ? "Shared policy served" : "Policy version served"}</dt>
          <dd data-testid="sim-version">
            {p ? p.servedVersion : "—"}
            {p?.versionsOf === "adapter" && <span className="muted"> (per user: each user&apos;s own adapter)</span>}
          </dd>
          <dt>{p?.versionsOf === "adapter" ? "Adapter versions trained" : "Training steps"}</dt>
          <dd data-testid="sim-steps">{p ? p.steps : "—"}</dd>
          <dt>Judged reward, first replies</dt>
          <dd data-testid="sim-reward">
            {first ? (
              <>
                <span data-testid="sim-base">
                  {base?.firstReward != null ? signed(base.firstReward) : "not judged"}
                </span>{" "}
                at the base (version 0{base ? `, ${base.firstTurns} repl${base.firstTurns === 1 ? "y" : "ies"}` : ""}) →{" "}
                {signed(first.reward)} now
              </>
            ) : (
              "no judged first replies yet"
            )}
          </dd>
          <dt>Judged reward, every reply</dt>
          <dd data-testid="sim-reward-all">
            {all ? `${base ? signed(base.reward) : "not judged"} at the base → ${signed(all.reward)} now` : "—"}
          </dd>
        </dl>
        <div>
          <div className="muted" style={{ fontSize: 12, marginBottom: 4 }}>
            Judged reward per {p?.versionsOf === "adapter" ? "adapter version (every user's)" : "policy version"}: first
            replies (dots; line: mean of the last 5 versions), every reply (dashed)
          </div>
          {p && p.versions.length > 0 ? (
            <RewardChart points={p.versions} base={base} />
          ) : (
            <div className="empty">Waiting for the first judged turns…</div>
          )}
        </div>
      </div>
      <details style={{ marginTop: 8 }}>
        <summary className="muted">
          Settings: {item.settings.personas.join(", ")} · {item.settings.perMinute}/min · {item.settings.concurrency} at
          once · seed {item.settings.seed} · {item.settings.maxTurns} turns
        </summary>
        <SettingsForm
          key={item.updatedAt ?? "new"}
          settings={item.settings}
          pending={update.pending}
          onSave={(v) => save(v)}
        />
      </details>
    </div>
  );
}

function SettingsForm({
  settings,
  pending,
  onSave,
}: {
  settings: Settings;
  pending: boolean;
  onSave: (s: Settings) => void;
}) {
  const [v, setV] = useState(settings);
  const num = (k: "perMinute" | "concurrency" | "seed" | "maxTurns") => (ev: React.ChangeEvent<HTMLInputElement>) =>
    setV({ ...v, [k]: Number(ev.target.value) });
  const togglePersona = (id: string) =>
    setV({ ...v, personas: v.personas.includes(id) ? v.personas.filter((x) => x !== id) : [...v.personas, id] });
  return (
    <form onSubmit={(ev) => (ev.preventDefault(), onSave(v))} style={{ marginTop: 10 }}>
      <div className="grid2">
        <label className="field">
          Conversations per minute
          <input type="number" step="0.1" min="0.1" value={v.perMinute} onChange={num("perMinute")} />
        </label>
        <label className="field">
          Users at once
          <input type="number" min="1" max="64" value={v.concurrency} onChange={num("concurrency")} />
        </label>
        <label className="field">
          Seed
          <input type="number" min="0" value={v.seed} onChange={num("seed")} />
        </label>
        <label className="field">
          Replies per conversation
          <input type="number" min="1" max="12" value={v.maxTurns} onChange={num("maxTurns")} />
        </label>
      </div>
      <fieldset style={{ border: 0, padding: 0, margin: "10px 0" }}>
        <legend className="muted">Personas (their preferences are hidden from the agent)</legend>
        {PERSONAS.map((p) => (
          <label key={p.id} style={{ display: "block" }}>
            <input type="checkbox" checked={v.personas.includes(p.id)} onChange={() => togglePersona(p.id)} />{" "}
            <strong>{p.name}</strong>{" "}
            <span className="muted">
              — {p.description} Wants: {p.preferenceText}.
            </span>
          </label>
        ))}
      </fieldset>
      <GuardedButton perm="write" className="primary" type="submit" disabled={pending}>
        Save settings
      </GuardedButton>
    </form>
  );
}
