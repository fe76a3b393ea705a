/**
 * Pretrain the embedded base policy on a templated chat corpus built from the personas' questions.
 *
 *   npx tsx scripts/pretrain-policy.ts --seed 1 --steps 2500 --out models/base
 *
 * (That exact command produced the committed models/base; see models/base/README.md.)
 *
 * The base must behave like a small instruction-tuned model: follow a hint or instruction in its context (OPD's
 * teacher is this model prompted with the judge's hint), while meeting each persona's hidden preference only now
 * and then unprompted (so there is something to learn). The corpus is built like the simulated users'
 * conversations (server/simulation/conversation.ts): optional system prompt, note lookup, an earlier approved,
 * corrected or off-topic exchange; the hints are exactly those the heuristic judge derives from the users' corrections
 * (deriveHint over correctionsOf), appended as the teacher appends them (judge/core/teacher.ts). Unprompted
 * replies lean long. Deterministic given --seed (same machine type, same tfjs). */
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
import { renderChat, type ChatMessage, type ToolDef } from "../server/engine/tokenizer";
import { deriveHint } from "../server/judge/core/heuristic";
import { HINT_MARKER } from "../server/judge/core/teacher";
import { approvalWithQuestion, correctionsOf, notesResult, NOTES_TOOL } from "../server/simulation/conversation";
import {
  PERSONAS, QUESTIONS, renderReply, satisfiesPreference, STYLE_INSTRUCTIONS, type Persona, type PreferenceId, type Question, type ReplyStyle,
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
  /** most earlier exchanges before the trained reply (1 made models/base; a longer context can hold more) */
  history: z.coerce.number().int().min(0).default(1),
  out: z.string().default("models/base"),
});

// Unprompted replies lean long, so each persona's hidden preference is met only now and then (≤ 30 %:
// short and hint-only replies also pass Maya's "two sentences at most", and so does a long reply cut by the
// demo's 96-token cap after two sentences); a hint or instruction in the context is followed, so the hinted
// teacher of OPD writes what the persona asked for.
const STYLE_WEIGHTS: Array<[ReplyStyle, number]> = [["short", 0.06], ["long", 0.72], ["bullets", 0.14], ["hint", 0.08]];
/** Share of trained replies whose last user message carries a judge hint (the OPD teacher's context). */
const HINT_RATE = 0.45;
/** Share that carry an inline instruction instead ("Use a bullet list."). */
const INSTRUCTION_RATE = 0.1;
// A reply asked to sign off is mostly short, so the sign-off fits the demo's reply cap (96 tokens).
const SIGN_OFF_STYLES: Array<[ReplyStyle, number]> = [["short", 0.5], ["bullets", 0.25], ["long", 0.25]];
const SIGN_OFF_RATE = 0.12;
const BUCKETS = 4;
const SYSTEM_PROMPTS = ["You are a helpful personal assistant.", "You are a friendly assistant. Answer the user's question."];
/** What a user says to a reply about something else: a correction with no instruction in it (no judge hint). */
const OFF_TOPIC_CORRECTION = "no — that doesn't answer my question";
/** Share of conversations that open with the agent runtime's note lookup (as the simulated users' do). */
const TOOL_RATE = 0.1;

function drawStyle(rng: Rng, weights = STYLE_WEIGHTS): ReplyStyle {
  let u = rng();
  for (const [s, w] of weights) if ((u -= w) < 0) return s;
  return "long";
}

const STYLE_OF: Record<PreferenceId, ReplyStyle> = { concise: "short", bullets: "bullets", hints: "hint", signoff: "long" };

/**
 * The hints OPD's teacher is prompted with: exactly what the heuristic judge derives from each correction a
 * simulated user can give (server/judge/core/heuristic.ts deriveHint), per preference.
 */
const JUDGE_HINTS: Record<PreferenceId, string[]> = Object.fromEntries(
  PERSONAS.map((p) => [p.preference, correctionsOf(p).map((c) => deriveHint(c)).filter((h): h is string => h !== null)]),
) as Record<PreferenceId, string[]>;
const PREFERENCES = ["concise", "bullets", "hints", "signoff"] as const;

/** A reply that follows `pref` (the sign-off goes on a reply of any style). */
function compliantReply(question: Question, pref: PreferenceId, rng: Rng): string {
  const style = pref === "signoff" ? drawStyle(rng, SIGN_OFF_STYLES) : STYLE_OF[pref];
  return renderReply(question, style, { rng, signOff: pref === "signoff" });
}

/** A reply that does not satisfy `persona` (what the user then corrects). */
function violatingReply(question: Question, persona: Persona, rng: Rng): string {
  const first = renderReply(question, drawStyle(rng), { rng, signOff: rng() < SIGN_OFF_RATE });
  return satisfiesPreference(persona, first) ? renderReply(question, "long", { rng }) : first;
}

/**
 * One training conversation (messages ending with the assistant reply), built like the simulated users'
 * conversations: an optional system prompt, an optional note lookup, up to `maxHistory` earlier exchanges (approved,
 * with "Next question: …", corrected, or off topic and called out), then the reply that is trained on. 45 % of
 * the last user messages carry a judge hint in the teacher's format (server/judge/core/teacher.ts), 10 % an
 * inline instruction; those replies follow it. After a correction without a hint the reply follows the correction
 * half of the time, so the unprompted policy still has room to learn.
 */
function sampleConversation(rng: Rng, maxHistory: number): { messages: ChatMessage[]; tools?: ToolDef[] } {
  let question = pick(rng, QUESTIONS);
  const persona = pick(rng, PERSONAS);
  const msgs: ChatMessage[] = [];
  let tools: ToolDef[] | undefined;
  if (rng() < 0.3) msgs.push({ role: "system", content: pick(rng, SYSTEM_PROMPTS) });
  msgs.push({ role: "user", content: question.text });
  if (rng() < TOOL_RATE) {
    const call = { id: "call_notes_0", type: "function" as const, function: { name: NOTES_TOOL.function.name, arguments: JSON.stringify({ topic: question.topic }) } };
    msgs.push({ role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: call.id, content: notesResult(question, question.topic) });
    tools = [NOTES_TOOL];
  }
  let corrected = false;
  // Up to `maxHistory` earlier exchanges, each drawn independently; "none" ends the history.
  for (let i = 0; i < maxHistory; i++) {
    const history = rng();
    corrected = false;
    if (history < 0.2) {
      // An approved reply, then the user's next question in the same message.
      msgs.push({ role: "assistant", content: compliantReply(question, persona.preference, rng) });
      question = pick(rng, QUESTIONS);
      msgs.push({ role: "user", content: approvalWithQuestion(pick(rng, persona.approvals), question) });
    } else if (history < 0.42) {
      // A reply the persona corrects.
      msgs.push({ role: "assistant", content: violatingReply(question, persona, rng) }, { role: "user", content: pick(rng, correctionsOf(persona)) });
      corrected = true;
    } else if (history < 0.47) {
      // A reply about something else, which the user says does not answer the question (no hint: answer it).
      const other = pick(rng, QUESTIONS.filter((x) => x.topic !== question.topic));
      msgs.push({ role: "assistant", content: renderReply(other, drawStyle(rng), { rng }) }, { role: "user", content: OFF_TOPIC_CORRECTION });
    } else break;
  }
  const last = msgs[msgs.length - 1];
  const u = rng();
  let reply: string;
  if (u < HINT_RATE) {
    const pref = corrected ? persona.preference : pick(rng, PREFERENCES);
    last.content = `${last.content as string}\n\n${HINT_MARKER}\n${pick(rng, JUDGE_HINTS[pref])}`;
    reply = compliantReply(question, pref, rng);
  } else if (u < HINT_RATE + INSTRUCTION_RATE && !corrected) {
    const pref = pick(rng, PREFERENCES);
    last.content = `${last.content as string} ${pick(rng, STYLE_INSTRUCTIONS[pref])}`;
    reply = compliantReply(question, pref, rng);
  } else if (corrected && rng() < 0.5) {
    reply = compliantReply(question, persona.preference, rng);
  } else {
    reply = renderReply(question, drawStyle(rng), { rng, signOff: rng() < SIGN_OFF_RATE });
  }
  msgs.push({ role: "assistant", content: reply });
  return { messages: msgs, tools };
}

/** Token ids of a conversation, keeping the last `ctx` tokens. */
function sequence({ messages, tools }: { messages: ChatMessage[]; tools?: ToolDef[] }, ctx: number): number[] {
  const ids = renderChat(messages, { tools });
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
      const pool = Array.from({ length: args.batch * BUCKETS }, () => sequence(sampleConversation(rng, args.history), config.ctx));
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
