"use client";
// "Keep launching while training": an environment's standing launches. Start one with the launch form's task
// set and episode settings (over the train split only) and a cap of groups in flight; while the experiment has a
// live run, the episode worker keeps that many GRPO groups queued or running, until it is stopped. Live:
// refreshed every 5 s.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";
import { GuardedButton } from "../_components/Permission";

export interface LaunchSettings {
  taskSetId: string;
  n: number;
  maxSteps: number;
  estimator: "grpo" | "step_wise";
  prm: boolean;
  maxTokens?: number;
}

export function StandingLaunches(props: { experimentId: string; environmentId: string; settings: LaunchSettings }) {
  const trpc = useTRPC();
  const list = useQuery({
    ...trpc.standingLaunches.list.queryOptions({ experiment: props.experimentId }),
    refetchInterval: 5000,
  });
  const invalidate = [trpc.standingLaunches.pathKey(), trpc.environments.pathKey()];
  const start = useAction(trpc.standingLaunches.start.mutationOptions(), { invalidate });
  const stop = useAction(trpc.standingLaunches.stop.mutationOptions(), { invalidate });
  const [cap, setCap] = useState(4);
  const mine = (list.data ?? []).filter((s) => s.environmentId === props.environmentId);
  return (
    <div data-testid="standing-launches">
      <h3>Keep launching while training</h3>
      <p className="muted">
        Uses the task set and episode settings above, over the train split only (held-out tasks are never launched): the
        episode worker keeps up to the cap of groups queued or running, taking the train tasks in turn, until you stop
        it. A run leases the groups as they finish.
      </p>
      <ErrorBanner error={start.error ?? stop.error} />
      <div className="toolbar">
        <label className="field">
          <span>Groups in flight</span>
          <input
            aria-label="Groups in flight"
            type="number"
            min={1}
            max={64}
            value={cap}
            onChange={(e) => setCap(Number(e.target.value))}
          />
        </label>
        <GuardedButton
          perm="write"
          disabled={start.pending || !props.settings.taskSetId}
          onClick={() =>
            void start.run({ ...props.settings, environmentId: props.environmentId, maxGroupsInFlight: cap })
          }
        >
          Start standing launch
        </GuardedButton>
      </div>
      {mine.length > 0 && (
        <table className="list">
          <thead>
            <tr>
              <th>Started</th>
              <th>Task set</th>
              <th>Groups</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {mine.map((s) => (
              <tr key={s.id} data-testid="standing-launch">
                <td>{new Date(s.createdAt).toLocaleString()}</td>
                <td className="muted">
                  v{s.version} · n {s.n}
                </td>
                <td>
                  {s.groupsLaunched} launched · {s.groupsInFlight} of {s.maxGroupsInFlight} in flight
                </td>
                <td>
                  {!s.active
                    ? `stopped: ${s.stopReason ?? "—"}`
                    : s.waitingForRun
                      ? "waiting for a live run"
                      : "active"}
                </td>
                <td>
                  {s.active && (
                    <GuardedButton perm="write" disabled={stop.pending} onClick={() => void stop.run({ id: s.id })}>
                      Stop
                    </GuardedButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
