/**
 * Pretrain the embedded base policy on a templated chat corpus built from the personas' questions.
 *
 *   npx tsx scripts/pretrain-policy.ts --seed 1 --steps 1200 --out models/base
 *
 * (That exact command produced the committed models/base; see models/base/README.md.)
 *
 * Replies come in every style — short, long, bullet list, hint-only — with and without the
 * "— Cheers!" sign-off, drawn independently of the question, so the base model satisfies each
 * persona's hidden preference only some of the time and RL has behaviour to select among. A
 * fraction of examples carry an explicit instruction (inline, or in the OPD hint format
 * "[user's hint / instruction]") with a reply that follows it, so a teacher prompted with a hint
 * prefers the matching style; another fraction is a two-turn exchange where the user's correction
 * is followed by a reply that satisfies it. Deterministic given --seed (same machine, same tfjs).
 */
import * as tf from "@tensorflow/tfjs-core";
import { parseArgs } from "node:util";
import { z } from "zod";
import { initBackend } from "../server/engine/backend";
import { saveCheckpoint } from "../server/engine/checkpoint";
import { generate } from "../server/engine/generate";
import { countParams, createModel, DEFAULT_CONFIG, forward, paramNames, type Params } from "../server/engine/model";
import { Adam, globalNorm } from "../server/engine/optimizer";
import { mulberry32, pick, type Rng } from "../server/engine/rng";
import { packBatch, tokenLogprobs } from "../server/engine/score";
import { renderChat, type ChatMessage } from "../server/engine/tokenizer";
import {
  PERSONAS, QUESTIONS, renderReply, satisfiesPreference, STYLE_INSTRUCTIONS, type PreferenceId, type ReplyStyle,
} from "../server/simulation/personas";

const argsSchema = z.object({
  seed: z.coerce.number().int().default(1),
  steps: z.coerce.number().int().positive().default(1200),
  batch: z.coerce.number().int().positive().default(16),
  lr: z.coerce.number().positive().default(6e-3),
  warmup: z.coerce.number().int().min(0).default(60),
  layers: z.coerce.number().int().positive().default(DEFAULT_CONFIG.nLayer),
  embd: z.coerce.number().int().positive().default(DEFAULT_CONFIG.nEmbd),
  heads: z.coerce.number().int().positive().default(DEFAULT_CONFIG.nHead),
  ctx: z.coerce.number().int().positive().default(DEFAULT_CONFIG.ctx),
  out: z.string().default("models/base"),
});

const STYLE_WEIGHTS: Array<[ReplyStyle, number]> = [["short", 0.3], ["long", 0.25], ["bullets", 0.25], ["hint", 0.2]];
const SIGN_OFF_RATE = 0.3;
const BUCKETS = 4;
const SYSTEM_PROMPTS = ["You are a helpful personal assistant.", "You are a friendly assistant. Answer the user's question."];

function drawStyle(rng: Rng): ReplyStyle {
  let u = rng();
  for (const [s, w] of STYLE_WEIGHTS) if ((u -= w) < 0) return s;
  return "short";
}

const STYLE_OF: Record<PreferenceId, ReplyStyle> = { concise: "short", bullets: "bullets", hints: "hint", signoff: "long" };

/** One training conversation (messages ending with the assistant reply). */
function sampleConversation(rng: Rng): ChatMessage[] {
  const question = pick(rng, QUESTIONS);
  const msgs: ChatMessage[] = [];
  if (rng() < 0.3) msgs.push({ role: "system", content: pick(rng, SYSTEM_PROMPTS) });
  const mode = rng();
  if (mode < 0.25) {
    // Follows an explicit instruction.
    const pref = pick(rng, ["concise", "bullets", "hints", "signoff"] as const);
    const instr = pick(rng, STYLE_INSTRUCTIONS[pref]);
    const content = rng() < 0.5 ? `${question.text} ${instr}` : `${question.text}\n\n[user's hint / instruction]\n${instr}`;
    const style = pref === "signoff" ? drawStyle(rng) : STYLE_OF[pref];
    msgs.push({ role: "user", content }, { role: "assistant", content: renderReply(question, style, { rng, signOff: pref === "signoff" }) });
  } else if (mode < 0.4) {
    // Two turns: a reply, the persona's correction, a reply that satisfies it.
    const persona = pick(rng, PERSONAS);
    let first = renderReply(question, drawStyle(rng), { rng, signOff: rng() < SIGN_OFF_RATE });
    if (satisfiesPreference(persona, first)) first = renderReply(question, "long", { rng });
    const style = persona.preference === "signoff" ? drawStyle(rng) : STYLE_OF[persona.preference];
    msgs.push(
      { role: "user", content: question.text },
      { role: "assistant", content: first },
      { role: "user", content: persona.correction },
      { role: "assistant", content: renderReply(question, style, { rng, signOff: persona.preference === "signoff" }) },
    );
  } else {
    msgs.push(
      { role: "user", content: question.text },
      { role: "assistant", content: renderReply(question, drawStyle(rng), { rng, signOff: rng() < SIGN_OFF_RATE }) },
    );
  }
  return msgs;
}

/** Token ids of a conversation, keeping the last `ctx` tokens. */
function sequence(msgs: ChatMessage[], ctx: number): number[] {
  const ids = renderChat(msgs);
  return ids.slice(Math.max(0, ids.length - ctx));
}

async function main() {
  const { values } = parseArgs({
    options: Object.fromEntries(Object.keys(argsSchema.shape).map((k) => [k, { type: "string" as const }])),
  });
  const args = argsSchema.parse(values);
  const info = await initBackend();
  const config = { ...DEFAULT_CONFIG, nLayer: args.layers, nEmbd: args.embd, nHead: args.heads, ctx: args.ctx };
  console.log(`backend ${info.backend} simd=${info.simd} fastMatMul=${info.fastMatMul}`);
  console.log(`config ${JSON.stringify(config)} params=${countParams(config)} seed=${args.seed} steps=${args.steps}`);

  const model = createModel(config, args.seed);
  const adam = new Adam({ lr: args.lr, beta1: 0.9, beta2: 0.99 });
  const rng = mulberry32(args.seed ^ 0x5eed);
  const names = paramNames(config);
  const t0 = performance.now();
  let ema = NaN;
  // Length bucketing: draw BUCKETS batches' worth of conversations, sort by length and cut them into
  // batches of similar length, so short conversations are not padded to the longest (~2× less work).
  let queue: number[][][] = [];
  for (let step = 1; step <= args.steps; step++) {
    if (queue.length === 0) {
      const pool = Array.from({ length: args.batch * BUCKETS }, () => sequence(sampleConversation(rng), config.ctx));
      pool.sort((a, b) => a.length - b.length);
      queue = Array.from({ length: BUCKETS }, (_, i) => pool.slice(i * args.batch, (i + 1) * args.batch));
      for (let i = queue.length - 1; i > 0; i--) {
        const j = Math.floor(rng() * (i + 1));
        [queue[i], queue[j]] = [queue[j], queue[i]];
      }
    }
    const seqs = queue.pop() as number[][];
    const batch = packBatch(seqs.map((s) => ({ promptIds: s.slice(0, 1), responseIds: s.slice(1) })), config.ctx);
    const { value, grads } = tf.tidy(() => {
      const ids = tf.tensor2d(batch.ids, [batch.B, batch.T], "int32");
      const mask = tf.tensor2d(batch.mask, [batch.B, batch.T - 1]);
      return tf.valueAndGrads((...ps: tf.Tensor[]) => {
        const params: Params = Object.fromEntries(names.map((n, i) => [n, ps[i]]));
        const { logprobs } = tokenLogprobs(forward(config, params, ids), batch, false);
        return tf.div(tf.neg(tf.sum(tf.mul(logprobs, mask))), tf.sum(mask)) as tf.Scalar;
      })(names.map((n) => model.params[n]));
    });
    const loss = value.dataSync()[0];
    value.dispose();
    const gnorm = globalNorm(grads);
    const clip = gnorm > 1 ? 1 / gnorm : 1;
    const scaled = grads.map((g) => tf.mul(g, clip));
    const progress = Math.max(0, step - args.warmup) / Math.max(1, args.steps - args.warmup);
    const lr = step <= args.warmup ? (args.lr * step) / args.warmup : args.lr * (0.1 + 0.45 * (1 + Math.cos(Math.PI * progress)));
    adam.apply(model.params, Object.fromEntries(names.map((n, i) => [n, scaled[i]])), lr);
    tf.dispose([...grads, ...scaled]);
    ema = Number.isNaN(ema) ? loss : 0.95 * ema + 0.05 * loss;
    if (step % 25 === 0 || step === 1) {
      const s = (performance.now() - t0) / 1000;
      console.log(`step ${step}/${args.steps} loss ${loss.toFixed(3)} ema ${ema.toFixed(3)} lr ${lr.toExponential(2)} gnorm ${gnorm.toFixed(2)} ${s.toFixed(0)}s`);
    }
  }

  // Report how often the base model already satisfies each persona (greedy and sampled).
  const evalRng = mulberry32(args.seed + 7);
  for (const persona of PERSONAS) {
    let ok = 0;
    const n = 16;
    const qs = QUESTIONS.filter((x) => persona.topics.includes(x.topic));
    for (let i = 0; i < n; i++) {
      const question = pick(evalRng, qs);
      const prompt = renderChat([{ role: "user", content: question.text }], { addGenerationPrompt: true });
      const r = await generate(model, prompt, { maxTokens: 200, temperature: 1, seed: args.seed * 1000 + i });
      if (satisfiesPreference(persona, r.text)) ok++;
      if (i === 0) console.log(`[${persona.id}] ${question.text} → ${JSON.stringify(r.text)}`);
    }
    console.log(`persona ${persona.id} (${persona.preference}): satisfied ${ok}/${n} sampled replies`);
  }
  const meta = await saveCheckpoint(args.out, model, {
    version: 0,
    step: args.steps,
    extra: { seed: args.seed, finalLossEma: ema, trainSeconds: (performance.now() - t0) / 1000 },
  });
  console.log(`saved ${args.out} sha256=${meta.sha256}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
