/**
 * Pretrain the embedded base policy on a templated chat corpus built from the personas' questions.
 *
 *   npx tsx scripts/pretrain-policy.ts --seed 1 --steps 4000 --out models/base
 *
 * (That exact command produced the committed models/base; see models/base/README.md.)
 *
 * The base must behave like a small instruction-tuned model: follow a hint or instruction in its context (OPD's
 * teacher is this model prompted with the judge's hint), while meeting each persona's hidden preference only now
 * and then unprompted (so there is something to learn). The corpus is built like the simulated users'
 * conversations (server/simulation/conversation.ts): optional system prompt, note lookup, up to three earlier
 * exchanges in which a persona approves or corrects each reply (or calls out an off-topic one), fitted into the
 * context as the engine fits a served prompt (server/engine/fit.ts); the hints are exactly those the heuristic judge
 * derives from the users' corrections (deriveHint over correctionsOf), appended as the teacher appends them
 * (judge/core/teacher.ts). Unprompted replies lean long. Deterministic given --seed (same machine type, same tfjs).
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { initBackend } from "../server/engine/backend";
import { supervisedStep } from "./lib/supervised";
import { loadCheckpoint, saveCheckpoint } from "../server/engine/checkpoint";
import { generate } from "../server/engine/generate";
import { countParams, createModel, DEFAULT_CONFIG } from "../server/engine/model";
import { Adam } from "../server/engine/optimizer";
import { mulberry32, pick, type Rng } from "../server/engine/rng";
import { scoreBatch } from "../server/engine/score";
import { fitChat, servingBudget } from "../server/engine/fit";
import { decode, encode, END_ID, renderChat, type ChatMessage, type ToolDef } from "../server/engine/tokenizer";
import { deriveHint } from "../server/judge/core/heuristic";
import { HINT_MARKER } from "../server/judge/core/teacher";
import { approvalWithQuestion, correctionsOf, notesResult, NOTES_TOOL } from "../server/simulation/conversation";
import {
  PERSONAS,
  QUESTIONS,
  renderReply,
  satisfiesPreference,
  STYLE_INSTRUCTIONS,
  type PreferenceId,
  type Question,
  type ReplyStyle,
} from "../server/simulation/personas";

const argsSchema = z.object({
  seed: z.coerce.number().int().default(1),
  steps: z.coerce.number().int().positive().default(4000),
  batch: z.coerce.number().int().positive().default(16),
  lr: z.coerce.number().positive().default(6e-3),
  warmup: z.coerce.number().int().min(0).default(60),
  layers: z.coerce.number().int().positive().default(DEFAULT_CONFIG.nLayer),
  embd: z.coerce.number().int().positive().default(DEFAULT_CONFIG.nEmbd),
  heads: z.coerce.number().int().positive().default(DEFAULT_CONFIG.nHead),
  ctx: z.coerce.number().int().positive().default(DEFAULT_CONFIG.ctx),
  /** most earlier exchanges before the trained reply */
  history: z.coerce.number().int().min(0).default(3),
  /** the reply cap the corpus's earlier replies are cut at, and the room a prompt leaves (the demo's maxTokens) */
  replyCap: z.coerce.number().int().positive().default(96),
  /** also save the checkpoint every N steps (to `<out>-step<N>`), so it can be measured while training goes on */
  saveEvery: z.coerce.number().int().min(0).default(0),
  /**
   * The tokens the loss is on: every token (default), or the trained reply only, as instruction tuning does. On this
   * corpus every token learns faster: held-out reply loss 1.03 against 1.52 after 1,000 steps (the questions and
   * the earlier replies carry the same facts).
   */
  lossOn: z.enum(["reply", "all"]).default("all"),
  /** report a checkpoint's loss on 128 held-out corpus sequences (reply tokens, every token) and exit */
  evaluate: z.string().optional(),
  /** print this many corpus sequences (as the model sees them, the trained reply marked) and exit */
  dump: z.coerce.number().int().min(0).default(0),
  out: z.string().default("models/base"),
});

// Unprompted replies lean long, so each persona's hidden preference is met only now and then (≤ 30 %); a hint or
// instruction in the context is followed, so the hinted teacher of OPD writes what the persona asked for.
const STYLE_WEIGHTS: Array<[ReplyStyle, number]> = [
  ["short", 0.06],
  ["long", 0.72],
  ["bullets", 0.14],
  ["hint", 0.08],
];
/** Share of trained replies whose last user message carries a judge hint (the OPD teacher's context). */
const HINT_RATE = 0.45;
/** Share that carry an inline instruction instead ("Use a bullet list."). */
const INSTRUCTION_RATE = 0.1;
// A reply asked to sign off is short, so the sign-off fits the demo's reply cap (96 tokens).
const SIGN_OFF_STYLES: Array<[ReplyStyle, number]> = [
  ["short", 0.85],
  ["hint", 0.15],
];
const SIGN_OFF_RATE = 0.12;
/** After a correction without a hint, the share of replies that follow it (the rest still have room to learn). */
const FOLLOW_CORRECTION = 0.5;
/** Chance of one more earlier exchange (up to --history): 0, 1, 2, 3 earlier exchanges ≈ 40, 24, 14, 22 %. */
const MORE_HISTORY = 0.6;
/** Share of earlier replies longer than the reply cap that are cut at it, as served replies are. */
const CUT_EARLIER = 0.7;
const BUCKETS = 4;
const SYSTEM_PROMPTS = [
  "You are a helpful personal assistant.",
  "You are a friendly assistant. Answer the user's question.",
];
/** What a user says to a reply about something else: a correction with no instruction in it (no judge hint). */
const OFF_TOPIC_CORRECTION = "no — that doesn't answer my question";
const OFF_TOPIC_RATE = 0.06;
/** Share of conversations that open with the agent runtime's note lookup (as the simulated users' do). */
const TOOL_RATE = 0.1;

function drawStyle(rng: Rng, weights = STYLE_WEIGHTS): ReplyStyle {
  let u = rng();
  for (const [s, w] of weights) if ((u -= w) < 0) return s;
  return "long";
}

const STYLE_OF: Record<PreferenceId, ReplyStyle> = {
  concise: "short",
  bullets: "bullets",
  hints: "hint",
  signoff: "long",
};

/**
 * The hints OPD's teacher is prompted with: exactly what the heuristic judge derives from each correction a
 * simulated user can give (server/judge/core/heuristic.ts deriveHint), per preference.
 */
const JUDGE_HINTS: Record<PreferenceId, string[]> = Object.fromEntries(
  PERSONAS.map((p) => [
    p.preference,
    correctionsOf(p)
      .map((c) => deriveHint(c))
      .filter((h): h is string => h !== null),
  ]),
) as Record<PreferenceId, string[]>;
const PREFERENCES = ["concise", "bullets", "hints", "signoff"] as const;

/** A reply that follows `pref` (the sign-off goes on a short reply). */
function compliantReply(question: Question, pref: PreferenceId, rng: Rng): string {
  const style = pref === "signoff" ? drawStyle(rng, SIGN_OFF_STYLES) : STYLE_OF[pref];
  return renderReply(question, style, { rng, signOff: pref === "signoff" });
}

/** A reply as the base gives it unprompted: the style drawn independently of the question and the user. */
function unpromptedReply(question: Question, rng: Rng): string {
  return renderReply(question, drawStyle(rng), { rng, signOff: rng() < SIGN_OFF_RATE });
}

/** An earlier reply as the context holds it: cut at the reply cap most of the time, as served replies are. */
function asServed(reply: string, replyCap: number, rng: Rng): string {
  const bytes = encode(reply);
  return bytes.length > replyCap && rng() < CUT_EARLIER
    ? decode(bytes.slice(0, replyCap)).replace(/\uFFFD$/u, "")
    : reply;
}

/**
 * One training conversation, built like the simulated users' conversations: an optional system prompt, an
 * optional note lookup, up to `maxHistory` earlier exchanges in which one persona reacts to each reply as it
 * would (approval with the next question, or a correction; now and then a reply about something else, called
 * out), then the reply that is trained on. 45 % of the last user messages carry a judge hint in the teacher's
 * format (server/judge/core/teacher.ts) and 10 % an inline instruction; those replies follow it. After a
 * correction without a hint the reply follows the correction half of the time, so the unprompted policy still has
 * room to learn. Returns the messages before the trained reply, and the reply.
 */
function sampleConversation(
  rng: Rng,
  maxHistory: number,
  replyCap: number,
): { messages: ChatMessage[]; tools?: ToolDef[]; reply: string } {
  let question = pick(rng, QUESTIONS);
  const persona = pick(rng, PERSONAS);
  const msgs: ChatMessage[] = [];
  let tools: ToolDef[] | undefined;
  if (rng() < 0.3) msgs.push({ role: "system", content: pick(rng, SYSTEM_PROMPTS) });
  msgs.push({ role: "user", content: question.text });
  if (rng() < TOOL_RATE) {
    const call = {
      id: "call_notes_0",
      type: "function" as const,
      function: { name: NOTES_TOOL.function.name, arguments: JSON.stringify({ topic: question.topic }) },
    };
    msgs.push(
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "tool", tool_call_id: call.id, content: notesResult(question, question.topic) },
    );
    tools = [NOTES_TOOL];
  }
  let corrected = false;
  for (let i = 0; i < maxHistory && rng() < MORE_HISTORY; i++) {
    if (rng() < OFF_TOPIC_RATE) {
      // A reply about something else, which the user says does not answer the question (no hint: answer it).
      const other = pick(
        rng,
        QUESTIONS.filter((x) => x.topic !== question.topic),
      );
      msgs.push(
        { role: "assistant", content: asServed(unpromptedReply(other, rng), replyCap, rng) },
        { role: "user", content: OFF_TOPIC_CORRECTION },
      );
      continue;
    }
    const earlier =
      corrected && rng() < FOLLOW_CORRECTION
        ? compliantReply(question, persona.preference, rng)
        : unpromptedReply(question, rng);
    const served = asServed(earlier, replyCap, rng);
    msgs.push({ role: "assistant", content: served });
    corrected = !satisfiesPreference(persona, served);
    if (corrected) msgs.push({ role: "user", content: pick(rng, correctionsOf(persona)) });
    else {
      question = pick(rng, QUESTIONS);
      msgs.push({ role: "user", content: approvalWithQuestion(pick(rng, persona.approvals), question) });
    }
  }
  const last = msgs.findLast((m) => m.role === "user")!;
  const u = rng();
  let reply: string;
  if (u < HINT_RATE) {
    const pref = corrected ? persona.preference : pick(rng, PREFERENCES);
    last.content = `${last.content as string}\n\n${HINT_MARKER}\n${pick(rng, JUDGE_HINTS[pref])}`;
    reply = compliantReply(question, pref, rng);
  } else if (u < HINT_RATE + INSTRUCTION_RATE && !corrected && last === msgs.at(-1)) {
    const pref = pick(rng, PREFERENCES);
    last.content = `${last.content as string} ${pick(rng, STYLE_INSTRUCTIONS[pref])}`;
    reply = compliantReply(question, pref, rng);
  } else if (corrected && rng() < FOLLOW_CORRECTION) {
    reply = compliantReply(question, persona.preference, rng);
  } else {
    reply = unpromptedReply(question, rng);
  }
  return { messages: msgs, tools, reply };
}

/**
 * A conversation's token ids as the engine serves it (the prompt fitted by whole messages into the context less
 * the reply cap, engine/fit.ts), then the reply; cut at the context. `from` is where the reply's tokens start.
 */
function sequence(
  c: { messages: ChatMessage[]; tools?: ToolDef[]; reply: string },
  ctx: number,
  replyCap: number,
): { ids: number[]; from: number } {
  const prompt = fitChat(c.messages, servingBudget(ctx, replyCap), { tools: c.tools, addGenerationPrompt: true });
  return { ids: [...prompt, ...encode(c.reply), END_ID].slice(0, ctx), from: prompt.length };
}

async function main() {
  const { values } = parseArgs({
    options: Object.fromEntries(Object.keys(argsSchema.shape).map((k) => [k, { type: "string" as const }])),
  });
  const args = argsSchema.parse(values);
  if (args.dump > 0) {
    const rng = mulberry32(args.seed ^ 0x5eed);
    for (let i = 0; i < args.dump; i++) {
      const { ids, from } = sequence(sampleConversation(rng, args.history, args.replyCap), args.ctx, args.replyCap);
      console.log(
        `--- ${ids.length} tokens (prompt ${from})\n${decode(ids.slice(0, from), { keepSpecials: true })}⟦${decode(ids.slice(from), { keepSpecials: true })}⟧`,
      );
    }
    return;
  }
  const info = await initBackend();
  if (args.evaluate) {
    const { model } = await loadCheckpoint(args.evaluate);
    const rng = mulberry32(args.seed ^ 0xe7a1);
    const seqs = Array.from({ length: 128 }, () =>
      sequence(sampleConversation(rng, args.history, args.replyCap), model.config.ctx, args.replyCap),
    );
    const nll = (start: (s: { from: number }) => number) => {
      const lps = scoreBatch(
        model,
        seqs.map((s) => ({ promptIds: s.ids.slice(0, start(s)), responseIds: s.ids.slice(start(s)) })),
        16,
      ).flat();
      return -lps.reduce((a, b) => a + b, 0) / lps.length;
    };
    console.log(
      `${args.evaluate}: held-out loss ${nll((s) => s.from).toFixed(3)} nats/byte on replies, ${nll(() => 1).toFixed(3)} on every token`,
    );
    return;
  }
  const config = { ...DEFAULT_CONFIG, nLayer: args.layers, nEmbd: args.embd, nHead: args.heads, ctx: args.ctx };
  console.log(`backend ${info.backend} simd=${info.simd} fastMatMul=${info.fastMatMul}`);
  console.log(`config ${JSON.stringify(config)} params=${countParams(config)} seed=${args.seed} steps=${args.steps}`);

  const model = createModel(config, args.seed);
  const adam = new Adam({ lr: args.lr, beta1: 0.9, beta2: 0.99 });
  const rng = mulberry32(args.seed ^ 0x5eed);
  const t0 = performance.now();
  let ema = NaN;
  // Length bucketing: draw BUCKETS batches' worth of conversations, sort by length and cut them into
  // batches of similar length, so short conversations are not padded to the longest (~2× less work).
  let queue: Array<Array<{ ids: number[]; from: number }>> = [];
  for (let step = 1; step <= args.steps; step++) {
    if (queue.length === 0) {
      const pool = Array.from({ length: args.batch * BUCKETS }, () =>
        sequence(sampleConversation(rng, args.history, args.replyCap), config.ctx, args.replyCap),
      );
      pool.sort((a, b) => a.ids.length - b.ids.length);
      queue = Array.from({ length: BUCKETS }, (_, i) => pool.slice(i * args.batch, (i + 1) * args.batch));
      for (let i = queue.length - 1; i > 0; i--) {
        const j = Math.floor(rng() * (i + 1));
        [queue[i], queue[j]] = [queue[j], queue[i]];
      }
    }
    const seqs = queue.pop()!;
    const from = (s: { from: number }) => (args.lossOn === "reply" ? s.from : 1);
    const { loss, lr, gnorm } = supervisedStep(
      model,
      adam,
      seqs.map((s) => ({ promptIds: s.ids.slice(0, from(s)), responseIds: s.ids.slice(from(s)) })),
      step,
      args,
    );
    ema = Number.isNaN(ema) ? loss : 0.95 * ema + 0.05 * loss;
    if (args.saveEvery > 0 && step % args.saveEvery === 0 && step < args.steps) {
      await saveCheckpoint(`${args.out}-step${step}`, model, {
        version: 0,
        step,
        extra: { seed: args.seed, lossEma: ema },
      });
    }
    if (step % 25 === 0 || step === 1) {
      const s = (performance.now() - t0) / 1000;
      console.log(
        `step ${step}/${args.steps} loss ${loss.toFixed(3)} ema ${ema.toFixed(3)} lr ${lr.toExponential(2)} gnorm ${gnorm.toFixed(2)} ${s.toFixed(0)}s`,
      );
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
