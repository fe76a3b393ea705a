// The persona-v2 first-reply chart's data (bench/learning/firstReplyCurves.ts): runs from separate record files are
// labelled by method and batch size, a rerun of the same configuration and seed counts once (the one that reached
// further), and each graded version's band is over the seeds that reached it.
import { describe, expect, it } from "vitest";
import { firstReplyCurves, labelRuns, parseRecord } from "../../../bench/learning/firstReplyCurves";
import { renderBandSvg } from "../../../bench/learning/chart";

const rates = (both: number, onTopic: number) => ({ style: both, onTopic, both, replies: 32 });
const graded = (points: [number, number, number][]) =>
  points.map(([version, both, onTopic]) => ({ version, sampled: rates(both, onTopic), greedy: rates(0, 1) }));

describe("first-reply curves", () => {
  const long = {
    args: {},
    runs: [
      {
        name: "combine",
        seed: 7,
        firstReply: graded([
          [0, 0.0625, 0.84],
          [4, 0.375, 0.94],
          [8, 0.5, 0.9],
        ]),
      },
    ],
  };
  const short = {
    args: {},
    runs: [
      {
        name: "combine",
        seed: 9,
        firstReply: graded([
          [0, 0.0625, 0.84],
          [4, 0.125, 0.8],
        ]),
      },
      { name: "combine", seed: 7, firstReply: graded([[0, 0.0625, 0.84]]) },
      { name: "grpo", seed: 9, firstReply: graded([[4, 0.25, 0.7]]) },
    ],
  };
  const batch16 = { args: { batch: 16 }, runs: [{ name: "grpo", seed: 7, firstReply: graded([[4, 0.5, 0.6]]) }] };

  it("labels by method and batch, and keeps the furthest of a repeated configuration and seed", () => {
    const runs = labelRuns([long, short, batch16]);
    expect(runs.map((r) => [r.label, r.seed, r.firstReply.length])).toEqual([
      ["Combine", 7, 3],
      ["Combine", 9, 2],
      ["GRPO", 9, 1],
      ["GRPO, batch 16", 7, 1],
    ]);
  });

  it("bands each graded version over the seeds that reached it", () => {
    const curves = firstReplyCurves(labelRuns([long, short, batch16]));
    expect(curves.get("Combine")).toEqual([
      { version: 0, seeds: [7, 9], mean: 0.0625, min: 0.0625, max: 0.0625, onTopic: 0.84 },
      { version: 4, seeds: [7, 9], mean: 0.25, min: 0.125, max: 0.375, onTopic: 0.87 },
      { version: 8, seeds: [7], mean: 0.5, min: 0.5, max: 0.5, onTopic: 0.9 },
    ]);
    expect(curves.get("GRPO, batch 16")).toEqual([
      { version: 4, seeds: [7], mean: 0.5, min: 0.5, max: 0.5, onTopic: 0.6 },
    ]);
  });

  it("reads a growing record (runs) and the final report (results) alike", () => {
    const report = { args: { batch: 16, steps: 10 }, base: [], results: [{ ...batch16.runs[0]!, steps: 10 }] };
    expect(parseRecord(report)).toEqual({ args: { batch: 16, steps: 10 }, runs: batch16.runs });
    expect(parseRecord(long).runs).toEqual(long.runs);
    expect(() => parseRecord({ args: {} })).toThrow();
  });

  it("draws a dashed series as a dashed line", () => {
    const svg = renderBandSvg({
      title: "t",
      xLabel: "x",
      yLabel: "y",
      yMin: 0,
      yMax: 1,
      width: 200,
      height: 120,
      series: [
        { label: "a", color: "#c80a1e", dashed: true, points: [0, 1].map((x) => ({ x, mean: x, min: x, max: x })) },
      ],
    });
    expect(svg).toMatch(/stroke-dasharray/);
  });
});
