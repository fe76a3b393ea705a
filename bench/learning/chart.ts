// The learning benchmark's chart: per method a band (min–max over seeds) and its mean line, drawn by Apache ECharts'
// server-side SVG renderer (no DOM, no canvas) and rasterised by resvg (a Rust SVG renderer shipped as prebuilt npm
// binaries): two well-kept libraries instead of a hand-written PNG encoder.
import { Resvg } from "@resvg/resvg-js";
import * as echarts from "echarts";

export interface BandSeries {
  label: string;
  color: string;
  /** per x: mean, min and max over seeds */
  points: { x: number; mean: number; min: number; max: number }[];
  /** a dashed mean line without a band (a secondary measure beside a banded one) */
  dashed?: boolean;
}

export interface BandChart {
  title: string;
  xLabel: string;
  yLabel: string;
  yMin: number;
  yMax: number;
  target?: { y: number; label: string };
  series: BandSeries[];
  width?: number;
  height?: number;
}

/** The chart as SVG text. */
export function renderBandSvg(c: BandChart): string {
  const width = c.width ?? 960;
  const height = c.height ?? 540;
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width, height });
  const series: echarts.SeriesOption[] = [];
  for (const s of c.series) {
    if (s.dashed) {
      series.push({
        type: "line",
        name: s.label,
        data: s.points.map((p) => [p.x, p.mean]),
        lineStyle: { color: s.color, width: 1.5, type: "dashed" },
        itemStyle: { color: s.color },
        symbol: "none",
      });
      continue;
    }
    // A band is a stacked pair of areas: an invisible base at min, then max − min filled on top of it.
    const stack = `band-${s.label}`;
    series.push(
      {
        type: "line",
        name: `${s.label} min`,
        stack,
        stackStrategy: "all",
        data: s.points.map((p) => [p.x, p.min]),
        lineStyle: { opacity: 0 },
        symbol: "none",
        silent: true,
        tooltip: { show: false },
      },
      {
        type: "line",
        name: `${s.label} range`,
        stack,
        stackStrategy: "all",
        data: s.points.map((p) => [p.x, p.max - p.min]),
        lineStyle: { opacity: 0 },
        symbol: "none",
        areaStyle: { color: s.color, opacity: 0.18 },
        silent: true,
      },
      {
        type: "line",
        name: s.label,
        data: s.points.map((p) => [p.x, p.mean]),
        lineStyle: { color: s.color, width: 2 },
        itemStyle: { color: s.color },
        symbol: "none",
      },
    );
  }
  if (c.target) {
    series.push({
      type: "line",
      name: c.target.label,
      data: [],
      markLine: {
        symbol: "none",
        silent: true,
        lineStyle: { type: "dashed", color: "#666" },
        label: { formatter: c.target.label, position: "insideEndTop" },
        data: [{ yAxis: c.target.y }],
      },
    });
  }
  chart.setOption({
    animation: false,
    backgroundColor: "#ffffff",
    textStyle: { fontFamily: "DejaVu Sans, sans-serif" },
    title: { text: c.title, left: "center", textStyle: { fontSize: 15 } },
    legend: { top: 36, itemGap: 28, data: c.series.map((s) => s.label) },
    grid: { left: 64, right: 32, top: 76, bottom: 56 },
    xAxis: { type: "value", name: c.xLabel, nameLocation: "middle", nameGap: 30, min: 0, axisLine: { onZero: false } },
    yAxis: { type: "value", name: c.yLabel, nameLocation: "middle", nameGap: 40, min: c.yMin, max: c.yMax },
    series,
  });
  const svg = chart.renderToSVGString();
  chart.dispose();
  return svg;
}

/** The chart as PNG bytes. */
export function renderBandPng(c: BandChart): Buffer {
  const resvg = new Resvg(renderBandSvg(c), {
    background: "#ffffff",
    font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" },
  });
  return Buffer.from(resvg.render().asPng());
}
