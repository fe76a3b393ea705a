// The learning benchmark's chart writer produces a valid PNG: chunk CRCs (checked with node:zlib's own crc32), the
// declared size, scanlines that inflate to exactly height × (1 + 3·width) bytes, and the series drawn in its colour.
import { crc32, inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { renderLineChart } from "../../../bench/learning/png";

function chunks(png: Buffer): { type: string; data: Buffer }[] {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const out: { type: string; data: Buffer }[] = [];
  for (let off = 8; off < png.length; ) {
    const len = png.readUInt32BE(off);
    const type = png.toString("ascii", off + 4, off + 8);
    const data = png.subarray(off + 8, off + 8 + len);
    expect(png.readUInt32BE(off + 8 + len), `${type} CRC`).toBe(crc32(png.subarray(off + 4, off + 8 + len)));
    out.push({ type, data });
    off += 12 + len;
  }
  return out;
}

describe("PNG line chart", () => {
  it("is a well-formed RGB PNG with the series drawn in its colour", () => {
    const png = renderLineChart({
      title: "Test", xLabel: "step", yLabel: "reward", xMax: 10, yMin: -1, yMax: 1, width: 320, height: 200,
      target: { y: 0.6, label: "target" },
      series: [{ label: "A", color: [200, 10, 30], points: [{ x: 0, y: -1 }, { x: 10, y: 1 }] }],
    });
    const cs = chunks(png);
    expect(cs.map((c) => c.type)).toEqual(["IHDR", "IDAT", "IEND"]);
    const ihdr = cs[0].data;
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]]).toEqual([320, 200, 8, 2]);
    const raw = inflateSync(cs[1].data);
    expect(raw.length).toBe(200 * (1 + 3 * 320));
    let red = 0;
    for (let y = 0; y < 200; y++) {
      expect(raw[y * (1 + 3 * 320)]).toBe(0); // filter type "none"
      for (let x = 0; x < 320; x++) {
        const i = y * (1 + 3 * 320) + 1 + 3 * x;
        if (raw[i] === 200 && raw[i + 1] === 10 && raw[i + 2] === 30) red++;
      }
    }
    // A 3-px line across the plot plus the legend swatch: hundreds of pixels, not a stray few.
    expect(red).toBeGreaterThan(500);
  });
});
