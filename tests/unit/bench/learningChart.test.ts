// The learning benchmark's chart (bench/learning/chart.ts): ECharts' SVG, rasterised by resvg, is a PNG of the
// requested size, and each method's band and mean line are drawn in its colour.
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { renderBandPng, renderBandSvg, type BandChart } from "../../../bench/learning/chart";

const chart: BandChart = {
  title: "Test",
  xLabel: "step",
  yLabel: "reward",
  yMin: -1,
  yMax: 1,
  width: 320,
  height: 200,
  target: { y: 0.6, label: "target" },
  series: [
    {
      label: "A",
      color: "#c80a1e",
      points: [0, 5, 10].map((x) => ({ x, mean: x / 10 - 0.5, min: x / 10 - 0.7, max: x / 10 - 0.3 })),
    },
  ],
};

describe("band chart", () => {
  it("draws the band and the mean line in the series colour", () => {
    const svg = renderBandSvg(chart);
    expect(svg).toMatch(/^<svg/);
    expect(svg.toLowerCase()).toMatch(/fill="(#c80a1e|rgb\(200,10,30\))"/); // the band
    expect(svg.toLowerCase()).toMatch(/stroke="(#c80a1e|rgb\(200,10,30\))"/); // the mean line
  });

  it("is a PNG of the requested size, with RGBA scanlines", () => {
    const png = renderBandPng(chart);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([320, 200]);
    // Concatenate the IDAT chunks and inflate: the scanlines hold 4 bytes (RGBA) per pixel plus a filter byte.
    const idat: Buffer[] = [];
    for (let off = 8; off < png.length;) {
      const len = png.readUInt32BE(off);
      if (png.toString("ascii", off + 4, off + 8) === "IDAT") idat.push(png.subarray(off + 8, off + 8 + len));
      off += 12 + len;
    }
    expect(inflateSync(Buffer.concat(idat)).length).toBe(200 * (1 + 4 * 320));
  });
});
