// A small raster line chart written as a PNG with nothing but node:zlib: an RGB canvas, Bresenham lines
// (thickened), a 5×7 bitmap font for the labels, and the PNG container (IHDR, one IDAT, IEND, CRC-32).
import { deflateSync } from "node:zlib";

export type Rgb = [number, number, number];

export interface Series {
  label: string;
  color: Rgb;
  points: { x: number; y: number }[];
}

export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  xMax: number;
  yMin: number;
  yMax: number;
  /** dashed horizontal reference line */
  target?: { y: number; label: string };
  series: Series[];
  width?: number;
  height?: number;
}

// 5×7 glyphs, one string of 7 rows × 5 columns per character ("#" = ink). Uppercase only: text is upper-cased.
const FONT: Record<string, string> = {
  " ": "...................................", "0": ".###.#...##..###.#.###..##...#.###.", "1": "..#...##....#....#....#....#...###.",
  "2": ".###.#...#....#...#...#...#...#####", "3": "#####...#...#.....#.....##...#.###.", "4": "...#...##..#.#.#..#.#####...#....#.",
  "5": "######....####.....#....##...#.###.", "6": "..##..#...#....####.#...##...#.###.", "7": "#####....#...#...#...#....#....#...",
  "8": ".###.#...##...#.###.#...##...#.###.", "9": ".###.#...##...#.####....#...#..##..", ".": "..........................##...##..",
  "-": "...............#####...............", "+": ".......#....#..#####..#....#.......", ":": "......##...##........##...##.......",
  "/": "....#....#...#...#...#...#....#....", "(": "...#...#...#....#....#.....#.....#.", ")": ".#.....#.....#....#....#...#...#...",
  "%": "##...##..#...#...#...#...#..##...##", "=": "..........#####.....#####..........", ",": ".....................##....#...#...", "'": "..#....#...#.......................",
  A: ".###.#...##...#######...##...##...#", B: "####.#...##...#####.#...##...#####.", C: ".###.#...##....#....#....#...#.###.",
  D: "####.#...##...##...##...##...#####.", E: "######....#....####.#....#....#####", F: "######....#....####.#....#....#....",
  G: ".###.#...##....#.####...##...#.####", H: "#...##...##...#######...##...##...#", I: ".###...#....#....#....#....#...###.",
  J: "..###...#....#....#....#.#..#..##..", K: "#...##..#.#.#..##...#.#..#..#.#...#", L: "#....#....#....#....#....#....#####",
  M: "#...###.###.#.##.#.##...##...##...#", N: "#...##...###..##.#.##..###...##...#", O: ".###.#...##...##...##...##...#.###.",
  P: "####.#...##...#####.#....#....#....", Q: ".###.#...##...##...##.#.##..#..##.#", R: "####.#...##...#####.#.#..#..#.#...#",
  S: ".#####....#.....###.....#....#####.", T: "#####..#....#....#....#....#....#..", U: "#...##...##...##...##...##...#.###.",
  V: "#...##...##...##...##...#.#.#...#..", W: "#...##...##...##.#.##.#.##.#.#.#.#.", X: "#...##...#.#.#...#...#.#.#...##...#",
  Y: "#...##...#.#.#...#....#....#....#..", Z: "#####....#...#...#...#...#....#####",
};

class Canvas {
  readonly px: Uint8Array;
  constructor(readonly w: number, readonly h: number) {
    this.px = new Uint8Array(w * h * 3).fill(255);
  }
  set(x: number, y: number, c: Rgb): void {
    if (x < 0 || y < 0 || x >= this.w || y >= this.h) return;
    const i = (Math.round(y) * this.w + Math.round(x)) * 3;
    this.px[i] = c[0];
    this.px[i + 1] = c[1];
    this.px[i + 2] = c[2];
  }
  rect(x0: number, y0: number, x1: number, y1: number, c: Rgb): void {
    for (let y = Math.round(y0); y <= Math.round(y1); y++) for (let x = Math.round(x0); x <= Math.round(x1); x++) this.set(x, y, c);
  }
  line(x0: number, y0: number, x1: number, y1: number, c: Rgb, width = 1, dash = 0): void {
    const n = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1);
    const r = (width - 1) / 2;
    for (let i = 0; i <= n; i++) {
      if (dash && Math.floor(i / dash) % 2 === 1) continue;
      const x = x0 + ((x1 - x0) * i) / n;
      const y = y0 + ((y1 - y0) * i) / n;
      this.rect(x - r, y - r, x + r, y + r, c);
    }
  }
  /** Text at (x, y) = top-left, `scale` pixels per font pixel; returns its width. */
  text(x: number, y: number, s: string, c: Rgb, scale = 2): number {
    let cx = x;
    for (const ch of s.toUpperCase()) {
      const g = FONT[ch] ?? FONT[" "];
      for (let row = 0; row < 7; row++) for (let col = 0; col < 5; col++) if (g[row * 5 + col] === "#") this.rect(cx + col * scale, y + row * scale, cx + col * scale + scale - 1, y + row * scale + scale - 1, c);
      cx += 6 * scale;
    }
    return cx - x;
  }
  textWidth(s: string, scale = 2): number {
    return s.length * 6 * scale;
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "ascii");
  Buffer.from(data).copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

export function encodePng(w: number, h: number, rgb: Uint8Array): Buffer {
  const raw = Buffer.alloc(h * (w * 3 + 1));
  for (let y = 0; y < h; y++) {
    raw[y * (w * 3 + 1)] = 0; // filter: none
    Buffer.from(rgb.buffer, rgb.byteOffset + y * w * 3, w * 3).copy(raw, y * (w * 3 + 1) + 1);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter method, no interlace
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", new Uint8Array(0))]);
}

const INK: Rgb = [40, 40, 40];
const GRID: Rgb = [225, 225, 225];

function niceStep(range: number, target: number): number {
  const raw = range / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
}

export function renderLineChart(spec: ChartSpec): Buffer {
  const W = spec.width ?? 900;
  const H = spec.height ?? 500;
  const c = new Canvas(W, H);
  const L = 90, R = W - 30, T = 84, B = H - 70;
  const sx = (x: number) => L + (x / Math.max(spec.xMax, 1)) * (R - L);
  const sy = (y: number) => B - ((y - spec.yMin) / (spec.yMax - spec.yMin)) * (B - T);

  c.text((W - c.textWidth(spec.title)) / 2, 18, spec.title, INK);
  const xStep = Math.max(1, niceStep(spec.xMax, 8));
  for (let x = 0; x <= spec.xMax + 1e-9; x += xStep) {
    c.line(sx(x), T, sx(x), B, GRID);
    const label = String(Math.round(x));
    c.text(sx(x) - c.textWidth(label) / 2, B + 10, label, INK);
  }
  const yStep = niceStep(spec.yMax - spec.yMin, 8);
  for (let y = Math.ceil(spec.yMin / yStep) * yStep; y <= spec.yMax + 1e-9; y += yStep) {
    c.line(L, sy(y), R, sy(y), GRID);
    const label = (y > 0 ? "+" : "") + y.toFixed(1);
    c.text(L - 10 - c.textWidth(label), sy(y) - 7, label, INK);
  }
  c.line(L, T, L, B, INK);
  c.line(L, B, R, B, INK);
  c.text((L + R - c.textWidth(spec.xLabel)) / 2, B + 36, spec.xLabel, INK);
  c.text(12, T - 26, spec.yLabel, INK);
  if (spec.target) {
    c.line(L, sy(spec.target.y), R, sy(spec.target.y), [150, 150, 150], 2, 8);
    c.text(R - c.textWidth(spec.target.label) - 4, sy(spec.target.y) - 20, spec.target.label, [120, 120, 120]);
  }
  for (const s of spec.series) {
    for (let i = 1; i < s.points.length; i++) {
      const a = s.points[i - 1];
      const b = s.points[i];
      c.line(sx(a.x), sy(a.y), sx(b.x), sy(b.y), s.color, 3);
    }
  }
  let lx = L + 16;
  for (const s of spec.series) {
    c.rect(lx, T + 10, lx + 24, T + 14, s.color);
    lx += 32 + c.text(lx + 32, T + 6, s.label, INK) + 24;
  }
  return encodePng(W, H, c.px);
}
