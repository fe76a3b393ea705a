// Which chart a metric goes on: charts by topic, split by unit, with step-less series on the time axis.
import { unitOf, type Axis } from "./chart";

export interface ChartSpec {
  title: string;
  names: string[];
  axis: Axis;
  unit: string;
}

/** Charts by topic; a metric goes to the first group that claims it, the rest get a chart each. */
const GROUPS: { title: string; claims: (name: string) => boolean }[] = [
  { title: "Reward mean", claims: (n) => n === "rollout/reward_mean" },
  { title: "PRM eval score", claims: (n) => n === "rollout/prm_eval_score" },
  { title: "Loss", claims: (n) => n === "train/loss" || n === "train/pg_loss" },
  { title: "KL", claims: (n) => n === "train/ppo_kl" || n === "train/kl_loss" },
  { title: "Clip fraction", claims: (n) => n === "train/pg_clipfrac" },
  { title: "Entropy", claims: (n) => n === "train/entropy" },
  { title: "Grad norm", claims: (n) => n === "train/grad_norm" },
  { title: "Staleness", claims: (n) => n.includes("staleness") },
  {
    title: "Sample accounting",
    claims: (n) => /sample|accepted|excluded|opd_only|rl_only|both/.test(n) && !n.startsWith("judge/"),
  },
  { title: "Batch fill and time to next step", claims: (n) => /batch_fill|next_step|time_to_next/.test(n) },
  { title: "Response length", claims: (n) => n.startsWith("rollout/response_len") },
  { title: "Throughput", claims: (n) => /per_s|tokens_per_s|step_ms|latency|ttft/.test(n) },
  { title: "Queue depth and lag", claims: (n) => /queue|lag|buffer/.test(n) },
];

/**
 * Series recorded without a step (judge, proxy and queue gauges) have no place on a step axis: on the Step
 * axis they get charts of their own on the time axis instead of saying "No points yet".
 */
export function chartsFor(names: string[], timeOnly: Set<string>, axis: Axis): ChartSpec[] {
  const make = (title: string, a: Axis) => ({ title, names: [] as string[], axis: a });
  const charts = GROUPS.map((g) => make(g.title, axis));
  const timeCharts = GROUPS.map((g) => make(`${g.title} (by time)`, "time"));
  const other: { title: string; names: string[]; axis: Axis }[] = [];
  for (const n of [...names].sort()) {
    const onTime = axis === "step" && timeOnly.has(n);
    const i = GROUPS.findIndex((g) => g.claims(n));
    if (i >= 0) (onTime ? timeCharts : charts)[i]!.names.push(n);
    else other.push({ title: n, names: [n], axis: onTime ? "time" : axis });
  }
  return [...charts, ...timeCharts]
    .filter((c) => c.names.length)
    .concat(other)
    .flatMap(byUnit);
}

/** One unit per y axis: a group that mixes milliseconds and rates (Throughput, Queue depth and lag) splits. */
function byUnit(c: {
  title: string;
  names: string[];
  axis: Axis;
}): { title: string; names: string[]; axis: Axis; unit: string }[] {
  const units = [...new Set(c.names.map(unitOf))];
  if (units.length === 1) return [{ ...c, unit: units[0]! }];
  return units.map((u) => ({
    title: `${c.title} (${u || "count"})`,
    names: c.names.filter((n) => unitOf(n) === u),
    axis: c.axis,
    unit: u,
  }));
}
