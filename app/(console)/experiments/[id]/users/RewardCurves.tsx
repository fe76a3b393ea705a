"use client";
// Each end user's mean judged reward per version that served them, beside the shared policy's curve (bold, dashed):
// of this experiment, or of another one picked here (e.g. the same users on one shared policy).
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../../../_lib/trpc";
import { ExperimentSelect } from "../../../_components/ExperimentSelect";

type Point = { version: number; meanReward: number; turns: number };

const W = 520;
const H = 180;
const PAD = 24;

function line(points: Point[], maxVersion: number): string {
  const x = (v: number) => PAD + (maxVersion ? (v / maxVersion) * (W - 2 * PAD) : (W - 2 * PAD) / 2);
  const y = (r: number) => H - PAD - ((r + 1) / 2) * (H - 2 * PAD);
  return points.map((p) => `${x(p.version).toFixed(1)},${y(p.meanReward).toFixed(1)}`).join(" ");
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
  const maxVersion = Math.max(
    0,
    ...(d?.shared.points ?? []).map((p) => p.version),
    ...(d?.users ?? []).flatMap((u) => u.points.map((p) => p.version)),
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
          <svg
            width={W}
            height={H}
            role="img"
            aria-label={[
              describe(`shared policy (${d.shared.name})`, d.shared.points),
              ...d.users.map((u) => describe(u.endUserId, u.points)),
            ].join("; ")}
          >
            <line x1={PAD} x2={W - PAD} y1={H / 2} y2={H / 2} stroke="currentColor" opacity={0.2} />
            {d.users.map((u, i) => (
              <polyline
                key={u.endUserId}
                fill="none"
                stroke={`hsl(${(i * 67) % 360} 60% 45%)`}
                points={line(u.points, maxVersion)}
              >
                <title>{describe(u.endUserId, u.points)}</title>
              </polyline>
            ))}
            <polyline
              fill="none"
              stroke="currentColor"
              strokeWidth={3}
              strokeDasharray="6 4"
              points={line(d.shared.points, maxVersion)}
            >
              <title>{describe("shared policy", d.shared.points)}</title>
            </polyline>
          </svg>
          <ul aria-label="Curve legend" className="muted">
            <li>
              <strong>shared policy</strong> ({d.shared.name}): {describe("", d.shared.points).slice(2)}
            </li>
            {d.users.map((u, i) => (
              <li key={u.endUserId} style={{ color: `hsl(${(i * 67) % 360} 60% 45%)` }}>
                {describe(u.endUserId, u.points)}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
