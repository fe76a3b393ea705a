"use client";
// Each end user's mean judged reward per version that served them, beside the shared policy's curve (bold, dashed):
// of this experiment, or of another one picked here (e.g. the same users on one shared policy).
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useTRPC } from "../../../../_lib/trpc";
import { ExperimentSelect } from "../../../_components/ExperimentSelect";

type Point = { version: number; meanReward: number; turns: number };

const userColor = (i: number) => `hsl(${(i * 67) % 360} 60% 50%)`;

/** One row per version for recharts: the shared policy's mean reward and each user's (by their place), where drawn. */
function rowsOf(shared: Point[], users: Point[][]): Array<Record<string, number>> {
  const rows = new Map<number, Record<string, number>>();
  const at = (v: number) => rows.get(v) ?? rows.set(v, { version: v }).get(v)!;
  for (const p of shared) at(p.version).shared = p.meanReward;
  users.forEach((pts, i) => pts.forEach((p) => (at(p.version)[`u${i}`] = p.meanReward)));
  return [...rows.values()].sort((a, b) => a.version - b.version);
}

const describe = (name: string, pts: Point[]) =>
  `${name}: ${pts.map((p) => `v${p.version} ${p.meanReward.toFixed(2)}`).join(", ") || "no judged turns"}`;

export function RewardCurves({ experimentId }: { experimentId: string }) {
  const trpc = useTRPC();
  const [sharedId, setSharedId] = useState("");
  const curves = useQuery({
    ...trpc.endUsers.curves.queryOptions({ experimentId, ...(sharedId ? { sharedExperimentId: sharedId } : {}) }),
    refetchInterval: 10_000,
  });
  const d = curves.data;
  return (
    <section aria-label="Reward curves">
      <h2>Reward by version</h2>
      {/* unpicked, the server's default: a per-user experiment's shared twin (its users' other experiment) */}
      <ExperimentSelect
        label="Shared policy of"
        value={sharedId || (d?.shared.experimentId ?? "")}
        onChange={setSharedId}
        allowAll={false}
      />
      {d && (
        <>
          <p className="muted">
            Mean judged reward (−1…1) per{" "}
            {d.versionOf === "adapter" ? "adapter version (v0: the base)" : "policy version"} for each user, and per
            policy version for the shared policy of {d.shared.name}.
          </p>
          <div
            role="img"
            style={{ width: "100%", height: 240 }}
            aria-label={[
              describe(`shared policy (${d.shared.name})`, d.shared.points),
              ...d.users.map((u) => describe(u.endUserId, u.points)),
            ].join("; ")}
          >
            <ResponsiveContainer>
              <LineChart
                data={rowsOf(
                  d.shared.points,
                  d.users.map((u) => u.points),
                )}
                margin={{ top: 8, right: 8, bottom: 8, left: 0 }}
              >
                <CartesianGrid stroke="var(--border)" />
                <XAxis
                  dataKey="version"
                  type="number"
                  domain={["dataMin", "dataMax"]}
                  allowDecimals={false}
                  tick={{ fontSize: 11 }}
                  label={{ value: "version", position: "insideBottomRight", offset: -4, fontSize: 11 }}
                />
                <YAxis domain={[-1, 1]} ticks={[-1, -0.5, 0, 0.5, 1]} tick={{ fontSize: 11 }} />
                <ReferenceLine y={0} stroke="currentColor" strokeOpacity={0.3} />
                <Tooltip
                  formatter={(v) => (typeof v === "number" ? v.toFixed(2) : String(v))}
                  labelFormatter={(v) => `version ${v}`}
                />
                {d.users.map((u, i) => (
                  <Line
                    key={u.endUserId}
                    dataKey={`u${i}`}
                    name={u.endUserId}
                    stroke={userColor(i)}
                    connectNulls
                    isAnimationActive={false}
                  />
                ))}
                <Line
                  dataKey="shared"
                  name="shared policy"
                  stroke="currentColor"
                  strokeWidth={3}
                  strokeDasharray="6 4"
                  dot={false}
                  connectNulls
                  isAnimationActive={false}
                />
              </LineChart>
            </ResponsiveContainer>
          </div>
          <ul aria-label="Curve legend" className="muted">
            <li>
              <strong>shared policy</strong> ({d.shared.name}): {describe("", d.shared.points).slice(2)}
            </li>
            {d.users.map((u, i) => (
              <li key={u.endUserId} style={{ color: userColor(i) }}>
                {describe(u.endUserId, u.points)}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
