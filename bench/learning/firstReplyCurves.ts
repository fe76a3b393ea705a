/**
 * The headline chart of learning with persona-v2: per method, the held-out first replies "in style and on topic"
 * (at T = 1; the title says on how many replies per version) at each graded version, a band over the seeds that reached that version and its mean line, with the
 * on-topic rate as a dashed line. Drawn from the --record files of bench/learning/run.ts, so runs made separately (a
 * long seed, other seeds, another batch size) and runs cut by a deadline count with what they reached.
 *
 *   npx tsx bench/learning/firstReplyCurves.ts --out bench/learning/first-reply-curves.png bench/out/a.json bench/out/b.json
 *
 * Writes the PNG and, beside it, the JSON of the points it drew (the data behind the chart, small enough to commit).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { renderBandPng, type BandSeries } from "./chart";

const RatesSchema = z.object({ style: z.number(), onTopic: z.number(), both: z.number(), replies: z.number() });
const RunSchema = z.object({
  name: z.string(),
  seed: z.number().int(),
  firstReply: z.array(z.object({ version: z.number().int(), sampled: RatesSchema, greedy: RatesSchema })),
});
const ArgsSchema = z.object({ batch: z.number().int().optional(), persona: z.string().optional() }).passthrough();
/** A --record file as it grows (`runs`), or the report run.ts writes beside its PNG at the end (`results`). */
const RecordSchema = z.union([
  z.object({ args: ArgsSchema, runs: z.array(RunSchema) }),
  z
    .object({ args: ArgsSchema, results: z.array(RunSchema) })
    .transform(({ args, results }) => ({ args, runs: results })),
]);
type Record = z.output<typeof RecordSchema>;

export const parseRecord = (json: unknown): Record => RecordSchema.parse(json);

/** One run's graded versions under the label of its configuration. */
export interface LabelledRun {
  label: string;
  seed: number;
  firstReply: Record["runs"][number]["firstReply"];
}

export interface CurvePoint {
  version: number;
  /** the seeds that reached this version */
  seeds: number[];
  mean: number;
  min: number;
  max: number;
  onTopic: number;
}

const NAMES: { [name: string]: string } = { grpo: "GRPO", opd: "OPD", combine: "Combine", control: "Control (lr 0)" };

/** Runs from several record files, each labelled by method and the batch size when the file set one. */
export function labelRuns(records: Record[]): LabelledRun[] {
  const runs = records.flatMap((r) =>
    r.runs.map((run) => ({
      label: `${NAMES[run.name] ?? run.name}${r.args.batch === undefined ? "" : `, batch ${r.args.batch}`}`,
      seed: run.seed,
      firstReply: run.firstReply,
    })),
  );
  // The same configuration and seed recorded twice (a rerun): the one that reached further counts.
  const best = new Map<string, LabelledRun>();
  for (const r of runs) {
    const key = `${r.label}\u0000${r.seed}`;
    const had = best.get(key);
    if (!had || r.firstReply.length > had.firstReply.length) best.set(key, r);
  }
  return [...best.values()];
}

/** Per label, per graded version: "style and on topic" mean and range over the seeds that graded it, and on topic. */
export function firstReplyCurves(runs: LabelledRun[]): Map<string, CurvePoint[]> {
  const out = new Map<string, CurvePoint[]>();
  for (const label of [...new Set(runs.map((r) => r.label))]) {
    const mine = runs.filter((r) => r.label === label);
    const versions = [...new Set(mine.flatMap((r) => r.firstReply.map((f) => f.version)))].sort((a, b) => a - b);
    out.set(
      label,
      versions.map((version) => {
        const at = mine
          .map((r) => ({ seed: r.seed, f: r.firstReply.find((f) => f.version === version) }))
          .filter((x): x is { seed: number; f: LabelledRun["firstReply"][number] } => x.f !== undefined)
          .sort((a, b) => a.seed - b.seed);
        const both = at.map((x) => x.f.sampled.both);
        return {
          version,
          seeds: at.map((x) => x.seed),
          mean: both.reduce((a, b) => a + b, 0) / both.length,
          min: Math.min(...both),
          max: Math.max(...both),
          onTopic: at.reduce((a, x) => a + x.f.sampled.onTopic, 0) / at.length,
        };
      }),
    );
  }
  return out;
}

const COLORS = ["#2ca02c", "#1f77b4", "#9467bd", "#d62728", "#ff7f0e", "#7f7f7f"];

async function main() {
  const { values, positionals } = parseArgs({
    options: { out: { type: "string", default: "bench/learning/first-reply-curves.png" } },
    allowPositionals: true,
  });
  if (positionals.length === 0) throw new Error("name at least one --record JSON of bench/learning/run.ts");
  const records = positionals.map((f) => parseRecord(JSON.parse(readFileSync(f, "utf8"))));
  const personas = [...new Set(records.map((r) => r.args.persona ?? "leo"))];
  if (personas.length !== 1) throw new Error(`one persona per chart, got ${personas.join(", ")}`);
  const who = `${personas[0]![0]!.toUpperCase()}${personas[0]!.slice(1)}`;
  const curves = firstReplyCurves(labelRuns(records));
  const replies = [
    ...new Set(records.flatMap((r) => r.runs.flatMap((run) => run.firstReply.map((f) => f.sampled.replies)))),
  ];
  const series: BandSeries[] = [...curves].flatMap(([label, points], i) => {
    const color = COLORS[i % COLORS.length]!;
    const seeds = [...new Set(points.flatMap((p) => p.seeds))].sort((a, b) => a - b);
    return [
      {
        label: `${label} (seeds ${seeds.join(", ")})`,
        color,
        points: points.map((p) => ({ x: p.version, mean: p.mean, min: p.min, max: p.max })),
      },
      {
        label: `${label}: on topic`,
        color,
        dashed: true,
        points: points.map((p) => ({ x: p.version, mean: p.onTopic, min: p.onTopic, max: p.onTopic })),
      },
    ];
  });
  const png = renderBandPng({
    title: `${who}'s held-out first replies in style and on topic (persona-v2, ${replies.sort((a, b) => a - b).join(" or ")} replies per version at T = 1; band = range over seeds)`,
    xLabel: "training step (policy version)",
    yLabel: "share of first replies",
    yMin: 0,
    yMax: 1,
    target: { y: 0.6, label: "target 0.6" },
    series,
    width: 1100,
    height: 600,
  });
  writeFileSync(values.out, png);
  const json = values.out.replace(/\.png$/, ".json");
  writeFileSync(
    json,
    `${JSON.stringify({ persona: personas[0], sources: positionals.map((f) => path.basename(f)), curves: Object.fromEntries(curves) }, null, 1)}\n`,
  );
  console.log(`chart: ${values.out}, data: ${json}`);
}

if (process.argv[1] && /firstReplyCurves\.ts$/.test(process.argv[1])) {
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
