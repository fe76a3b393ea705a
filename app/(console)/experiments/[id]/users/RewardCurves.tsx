"use client";
// Each end user's mean judged reward per version that served them, beside the shared policy's curve (bold, dashed):
// of this experiment, or of another one picked here (e.g. the same users on one shared policy).
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useTRPC } from "../../../../_lib/trpc";
import { ExperimentSelect } from "../../../_components/ExperimentSelect";

type Point = { version: number; meanReward: number; turns: number; firstAt: string };
/** What the x axis counts: minutes since the first turn drawn (the shared policy's and the adapters' alike), or versions. */
type Axis = "time" | "version";

const userColor = (i: number) => `hsl(${(i * 67) % 360} 60% 50%)`;

/**
 * A curve's points for recharts. The users' adapter versions and the shared policy's versions count different things
 * (an adapter steps on one user's samples, the shared policy on everyone's), so the default axis is the time each
 * version first served, from the first turn drawn: both curves over the same minutes.
 */
function series(points: Point[], axis: Axis, t0: number) {
  return points.map((p) => ({
    x: axis === "version" ? p.version : (Date.parse(p.firstAt) - t0) / 60_000,
    reward: p.meanReward,
    version: p.version,
  }));
}

const describe = (name: string, pts: Point[]) =>
  `${name}: ${pts.map((p) => `v${p.version} ${p.meanReward.toFixed(2)}`).join(", ") || "no judged turns"}`;

export function RewardCurves({ experimentId }: { experimentId: string }) {
  const trpc = useTRPC();
  const [sharedId, setSharedId] = useState("");
  const [axis, setAxis] = useState<Axis>("time");
  const curves = useQuery({
    ...trpc.endUsers.curves.queryOptions({ experimentId, ...(sharedId ? { sharedExperimentId: sharedId } : {}) }),
    refetchInterval: 10_000,
  });
  const d = curves.data;
  const t0 = Math.min(
    ...[...(d?.shared.points ?? []), ...(d?.users ?? []).flatMap((u) => u.points)].map((p) => Date.parse(p.firstAt)),
  );
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
          <label>
            x axis{" "}
            <select value={axis} onChange={(ev) => setAxis(ev.target.value as Axis)}>
              <option value="time">time (minutes since the first turn)</option>
              <option value="version">version</option>
            </select>
          </label>
          <div
            role="img"
            style={{ width: "100%", height: 240 }}
            aria-label={[
              describe(`shared policy (${d.shared.name})`, d.shared.points),
              ...d.users.map((u) => describe(u.endUserId, u.points)),
            ].join("; ")}
          >
            <ResponsiveContainer>
              <LineChart margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
                <CartesianGrid stroke="var(--border)" />
                <XAxis
                  dataKey="x"
                  type="number"
                  domain={["dataMin", "dataMax"]}
                  allowDecimals={axis === "time"}
                  tickFormatter={(v: number) => (axis === "time" ? `${Math.round(v)}` : `${v}`)}
                  tick={{ fontSize: 11 }}
                  label={{
                    value: axis === "time" ? "minutes since the first turn" : "version",
                    position: "insideBottomRight",
                    offset: -4,
                    fontSize: 11,
                  }}
                />
                <YAxis domain={[-1, 1]} ticks={[-1, -0.5, 0, 0.5, 1]} tick={{ fontSize: 11 }} />
                <ReferenceLine y={0} stroke="currentColor" strokeOpacity={0.3} />
                <Tooltip
                  shared={false}
                  formatter={(v, name, item) => [
                    typeof v === "number" ? v.toFixed(2) : String(v),
                    `${name} v${(item.payload as { version: number }).version}`,
                  ]}
                  labelFormatter={() => ""}
                />
                {d.users.map((u, i) => (
                  <Line
                    key={u.endUserId}
                    data={series(u.points, axis, t0)}
                    dataKey="reward"
                    name={u.endUserId}
                    stroke={userColor(i)}
                    isAnimationActive={false}
                  />
                ))}
                <Line
                  data={series(d.shared.points, axis, t0)}
                  dataKey="reward"
                  name="shared policy"
                  stroke="currentColor"
                  strokeWidth={3}
                  strokeDasharray="6 4"
                  dot={false}
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
