// bench/personal serving: the embedded engine answering with many users' adapters in memory against one. Every
// adapter is merged into its own copy of the target projections once (engine/adapterPool.ts), so a request on any
// cached adapter should cost what a request on one does; this measures it. `--adapters` distinct adapters (random,
// non-zero: each changes the model) are warmed into the pool, then the same requests (same prompts, seeds and
// lengths) are sent round-robin over all of them and, interleaved in blocks, all to the first one; per-request
// latency p50 / p99 of each. `npx tsx bench/personal/serving.ts --adapters 100 --requests 400 --maxTokens 32`
import { parseArgs } from "node:util";
import { PerUserSchema } from "../../server/config/experimentConfig";
import { EmbeddedEngine } from "../../server/engine/engine";
import { loadCheckpoint } from "../../server/engine/checkpoint";
import { attentionAndMlpTargets, createAdapter, disposeAdapter, serializeAdapter } from "../../server/engine/lora";
import { mulberry32 } from "../../server/engine/rng";
import { END_ID } from "../../server/engine/tokenizer";
import * as tf from "@tensorflow/tfjs-core";
import { getPersona, questionsFor } from "../../server/simulation/personas";

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

async function main() {
  const { values } = parseArgs({
    options: {
      adapters: { type: "string", default: "100" },
      requests: { type: "string", default: "400" },
      maxTokens: { type: "string", default: "32" },
      block: { type: "string", default: "20" },
    },
  });
  const n = Number(values.adapters);
  const requests = Number(values.requests);
  const block = Number(values.block);
  const engine = new EmbeddedEngine();
  await engine.load("models/base");
  const { model: base } = await loadCheckpoint("models/base");
  engine.adapters.resize(Math.max(n, 1));
  const d = PerUserSchema.parse({});
  // A trained adapter has B ≠ 0; a fresh one (B = 0) would serve the base's numbers. Fill B with small noise.
  const served = Array.from({ length: n }, (_, i) => {
    const a = createAdapter(
      base.config,
      { rank: d.rank, alpha: d.alpha, targets: attentionAndMlpTargets(base.config) },
      i + 1,
    );
    const rng = mulberry32(1000 + i);
    for (const p of a.pairs.values()) {
      const noise = Float32Array.from({ length: p.B.size }, () => (rng() * 2 - 1) * 0.02);
      p.B.dispose();
      p.B = tf.tensor2d(noise, p.B.shape);
    }
    const weights = serializeAdapter(a);
    disposeAdapter(a);
    return { key: `user-${i}`, weights };
  });
  const questions = questionsFor(getPersona("maya"));
  const ask = async (i: number, adapter: (typeof served)[number]) => {
    const t0 = performance.now();
    await engine.chat([{ role: "user", content: questions[i % questions.length].text }], {
      maxTokens: Number(values.maxTokens),
      temperature: 1,
      seed: i,
      stopIds: [END_ID],
      adapter,
    });
    return performance.now() - t0;
  };
  const tWarm = performance.now();
  for (let i = 0; i < n; i++) await ask(i, served[i]);
  const warmMs = performance.now() - tWarm;
  const many: number[] = [];
  const one: number[] = [];
  // Interleaved blocks, so drift in the machine's load falls on both alike.
  for (let i = 0; i < requests; i += block) {
    for (let j = i; j < Math.min(i + block, requests); j++) many.push(await ask(j, served[j % n]));
    for (let j = i; j < Math.min(i + block, requests); j++) one.push(await ask(j, served[0]));
  }
  const f = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(1)} ms, p99 ${percentile(xs, 99).toFixed(1)} ms`;
  console.log(
    `${n} adapters in the pool (${engine.adapters.size} merged), ${requests} requests of ≤ ${values.maxTokens} tokens each way`,
  );
  console.log(`first request per adapter (merge included): ${(warmMs / n).toFixed(1)} ms mean`);
  console.log(`round-robin over ${n}: ${f(many)}`);
  console.log(`one adapter:         ${f(one)}`);
  console.log(`p99 ratio: ${(percentile(many, 99) / percentile(one, 99)).toFixed(2)}×`);
  engine.dispose();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
