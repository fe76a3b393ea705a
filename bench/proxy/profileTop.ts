// Summarizes a V8 .cpuprofile (node --cpu-prof; BENCH_PROXY_PROFILE writes one for the first replica):
// the idle share, and self time by function and by source file, so a change is chosen by measurement.
//   npx tsx bench/proxy/profileTop.ts <file.cpuprofile> [top=25]
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const file = process.argv[2]!;
const top = Number(process.argv[3] ?? 25);
const prof = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fn = new Map<string, number>();
const files = new Map<string, number>();
for (const [id, us] of self) {
  const f = byId.get(id)!.callFrame;
  const where = f.url
    .replace(/^file:\/\//, "")
    .replace(/.*\/node_modules\//, "npm:")
    .replace(/.*\/work\/main\//, "");
  const name = `${f.functionName || "(anonymous)"} ${where}:${f.lineNumber + 1}`;
  fn.set(name, (fn.get(name) ?? 0) + us);
  const bucket = where
    ? where.startsWith("npm:")
      ? where
          .split("/")
          .slice(0, where.startsWith("npm:@") ? 2 : 1)
          .join("/")
      : where.startsWith("node:")
        ? "node internals"
        : where
    : f.functionName;
  files.set(bucket, (files.get(bucket) ?? 0) + us);
}
const pctOf = (us: number) => `${((100 * us) / total).toFixed(1)}%`.padStart(6);
console.log(
  `${(total / 1e6).toFixed(1)} s sampled; idle ${pctOf(fn.get([...fn.keys()].find((k) => k.startsWith("(idle)"))!) ?? 0)}`,
);
console.log("\nself time by file / package:");
for (const [k, v] of [...files].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pctOf(v)}  ${k}`);
// Inclusive time (self + callees) by function name, counted once per stack (recursion is not doubled).
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map<string, number>();
for (const [id, us] of self) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const f = byId.get(cur)!.callFrame;
    const name = f.functionName || "(anonymous)";
    if (seen.has(name)) continue;
    seen.add(name);
    incl.set(name, (incl.get(name) ?? 0) + us);
  }
}
const busy = total - (fn.get([...fn.keys()].find((k) => k.startsWith("(idle)")) ?? "") ?? 0);
const watch = (
  process.env.PROFILE_WATCH ??
  "handleChat,plan,record,claim,recordTurn,push,append,transaction,readBody,parse,safeParse,authenticate,rateLimit,hit,send,sendJson,stringify,messageDigests,chainHashes,normalizeAll,extractSessionMeta,resolve,submit,observe"
).split(",");
console.log("\ninclusive time of chosen functions (share of busy time):");
for (const name of watch)
  if (incl.has(name)) console.log(`${`${((100 * incl.get(name)!) / busy).toFixed(1)}%`.padStart(6)}  ${name}`);
console.log("\nself time by function:");
for (const [k, v] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pctOf(v)}  ${k}`);
