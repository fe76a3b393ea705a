// bench/personal: four simulated users with conflicting preferences (Maya: two sentences at most; Leo: bullet lists;
// Sam: hints, not answers; Ava: a sign-off) talk to one agent, per-user (one LoRA adapter each on the frozen base)
// and shared (one adapter of the same shape serving everyone and trained on everyone's turns), with the same
// seeds and the same number of samples. Each round every user asks `perRound` of their own questions, is answered
// by the adapter that serves them, and reacts as in the simulation (simulation/conversation.ts reactionTo): +1 when
// the reply is in their style and on topic, else −1 with their correction (the off-topic rejection, or a style
// correction in their words), which the heuristic judge turns into a hint (judge/core/heuristic.ts deriveHint).
// The adapters step on those samples in batches of `perRound` (per-user: each user's own; shared: everyone's,
// interleaved) with the per-user trainer's step and defaults (personalization/step.ts: policy gradient plus the
// hinted base's confident hindsight demonstrations). Then the first replies to each user's held-out questions
// (never asked in training) are graded "preference and on topic" (simulation/grader.ts checkReply).
// No database: the same training and serving code as server/personalization, driven directly, so the numbers are
// the method's. `npx tsx bench/personal/run.ts --seeds 1,2,3 --rounds 12 --perRound 16 --k 4`
// (`--hindsight 0` for the policy gradient alone; `--lr`, `--gradClip`, `--advantages`, `--hindsightWeight`,
// `--rememberedHint false`, `--baseKl`, `--baseKlScope all`, `--relevance true`, `--minGain N`, `--target teacher`, `--focus hint`, `--teacherTemp τ`, `--rank` (alpha 2×rank), `--targets`,
// `--stylePrompts` (0: no style demonstrations on the base's prompt pool) override the defaults).
// Diagnostics: `--arms perUser` (or `shared`) runs one arm; `--users leo,sam` simulates only those users (a user's
// per-user adapter trains and is graded exactly as in the full run); `--show sam` prints that user's hindsight
// demonstrations (with their question) and per-user held-out replies to stderr. A turn's `userHint` is its user's
// latest earlier hint that does not restate its question, from that user's turns in the same arm (both arms alike).
import { parseArgs } from "node:util";
import { z } from "zod";
import { PerUserSchema } from "../../server/config/experimentConfig";
import { loadCheckpoint, loadPromptPool } from "../../server/engine/checkpoint";
import { EmbeddedEngine } from "../../server/engine/engine";
import type { PolicyModel } from "../../server/engine/model";
import {
  attentionAndMlpTargets,
  createAdapter,
  defaultTargets,
  disposeAdapter,
  serializeAdapter,
  type LoraAdapter,
} from "../../server/engine/lora";
import { mulberry32 } from "../../server/engine/rng";
import { decode, END_ID } from "../../server/engine/tokenizer";
import { deriveHint } from "../../server/judge/core/heuristic";
import { userAdapterStep, type HintedAdapterSample } from "../../server/personalization/step";
import { restatesQuestion } from "../../server/training/styleDemos";
import { reactionTo } from "../../server/simulation/conversation";
import type { ReplyCheck } from "../../server/simulation/grader";
import { getPersona, questionsFor, type Persona, type Question } from "../../server/simulation/personas";
import { heldOutGrade } from "./heldOut";

const ALL_USERS = ["maya", "leo", "sam", "ava"].map(getPersona);
/** the users simulated (`--users`, a diagnostic: per-user results do not depend on the others) */
let USERS = ALL_USERS;
let defaults = PerUserSchema.parse({});

interface Arm {
  adapters: Map<string, LoraAdapter>;
  versions: Map<string, number>;
  /** each user's latest hint that does not restate its question (the step's `userHint`; per user in both arms) */
  userHints: Map<string, string>;
  trainMs: number;
  samples: number;
  demos: number;
}

async function runSeed(
  engine: EmbeddedEngine,
  base: PolicyModel,
  promptPool: readonly string[],
  seed: number,
  o: { rounds: number; perRound: number; k: number; arms: Array<"perUser" | "shared">; show: string[] },
) {
  const maxTokens = 96;
  const fresh = (s: number) =>
    createAdapter(
      base.config,
      {
        rank: defaults.rank,
        alpha: defaults.alpha,
        targets: defaults.targets === "attention" ? defaultTargets(base.config) : attentionAndMlpTargets(base.config),
      },
      s,
    );
  const arms: Record<"perUser" | "shared", Arm> = {
    perUser: {
      adapters: new Map(USERS.map((u) => [u.id, fresh(seed * 100 + ALL_USERS.indexOf(u))])),
      versions: new Map(),
      userHints: new Map(),
      trainMs: 0,
      samples: 0,
      demos: 0,
    },
    shared: {
      adapters: new Map([["*", fresh(seed * 100)]]),
      versions: new Map(),
      userHints: new Map(),
      trainMs: 0,
      samples: 0,
      demos: 0,
    },
  };
  const keyOf = (arm: keyof typeof arms, user: Persona) => (arm === "shared" ? "*" : user.id);
  const served = (arm: keyof typeof arms, key: string) => ({
    key: `${seed}:${arm}:${key}:v${arms[arm].versions.get(key) ?? 0}`,
    weights: serializeAdapter(arms[arm].adapters.get(key)!),
  });
  const sampling = { maxTokens, temperature: 1, stopIds: [END_ID] };

  for (let round = 0; round < o.rounds; round++) {
    for (const arm of o.arms) {
      const byUser = new Map<string, HintedAdapterSample[]>();
      for (const user of USERS) {
        const questions = questionsFor(user);
        const adapter = served(arm, keyOf(arm, user));
        const samples: HintedAdapterSample[] = [];
        for (let i = 0; i < o.perRound; i++) {
          const q = questions[(round * o.perRound + i) % questions.length];
          const messages = [{ role: "user" as const, content: q.text }];
          const replySeed = seed * 1_000_000 + round * 1000 + i;
          const r = await engine.chat(messages, { ...sampling, seed: replySeed, adapter });
          // The user's reaction, and the hint the heuristic judge derives from a correction (its accepted hint).
          const reaction = reactionTo(user, q, r.text, mulberry32(replySeed));
          const hint = reaction.satisfied ? null : deriveHint(reaction.text);
          samples.push({
            promptIds: r.promptIds,
            responseIds: r.tokenIds,
            reward: reaction.satisfied ? 1 : -1,
            messages,
            hint,
            userHint: arms[arm].userHints.get(user.id) ?? null,
            endUserId: user.id,
          });
          if (hint && !restatesQuestion(hint, messages)) arms[arm].userHints.set(user.id, hint);
        }
        byUser.set(user.id, samples);
      }
      // Per-user: each adapter on its user's batch. Shared: one adapter on everyone's samples, interleaved as live
      // traffic would be, in batches of the same size.
      const batches: Array<[string, HintedAdapterSample[]]> =
        arm === "perUser"
          ? [...byUser]
          : (() => {
              const all = Array.from({ length: o.perRound }, (_, i) => USERS.map((u) => byUser.get(u.id)![i])).flat();
              return Array.from({ length: USERS.length }, (_, b) => [
                "*",
                all.slice(b * o.perRound, (b + 1) * o.perRound),
              ]);
            })();
      const gradNorms: string[] = [];
      const t0 = performance.now();
      for (const [b, [key, batch]] of batches.entries()) {
        const step = await userAdapterStep(base, arms[arm].adapters.get(key)!, batch, defaults, {
          maxTokens,
          // per-user: the user's place among all four, so a run with `--users` trains as the full run does
          seed: seed * 1_000_000 + round * 1000 + (arm === "perUser" ? ALL_USERS.findIndex((u) => u.id === key) : b),
          promptPool,
        });
        arms[arm].demos += step.demos;
        if (arm === "perUser" && o.show.includes(key))
          for (const d of step.demoSamples)
            console.error(
              `  demo ${key} r${round} ${JSON.stringify(/[^\n]*\?/.exec(decode(d.promptIds))?.[0] ?? "")}: ${JSON.stringify(decode(d.responseIds))}`,
            );
        gradNorms.push(step.gradNorm.toFixed(2));
        disposeAdapter(arms[arm].adapters.get(key)!);
        arms[arm].adapters.set(key, step.adapter);
        arms[arm].versions.set(key, (arms[arm].versions.get(key) ?? 0) + 1);
        arms[arm].samples += batch.length;
      }
      arms[arm].trainMs += performance.now() - t0;
      // Progress on stderr: each user's share of liked replies this round (the training-time learning curve).
      const liked = USERS.map((u) => {
        const b = byUser.get(u.id)!;
        return `${u.id} ${(b.filter((x) => x.reward > 0).length / b.length).toFixed(2)}`;
      });
      console.error(
        `seed ${seed} round ${round} ${arm}: liked ${liked.join(", ")}; demos ${arms[arm].demos}; gradient norms ${gradNorms.join(" ")}`,
      );
    }
  }

  type Rate = { style: number; both: number };
  const result: Record<string, { perUser: Rate; shared: Rate; base: Rate }> = {};
  const none = { style: NaN, both: NaN };
  for (const user of USERS) {
    const grade = { k: o.k, maxTokens };
    const show = o.show.includes(user.id)
      ? (q: Question, c: ReplyCheck, text: string) =>
          console.error(
            `  held-out ${user.id} ${q.id} ${c.ok ? "ok" : c.style ? "off-topic" : "style"}: ${JSON.stringify(text)}`,
          )
      : undefined;
    result[user.id] = {
      perUser: o.arms.includes("perUser")
        ? await heldOutGrade(engine, user, served("perUser", user.id), { ...grade, onReply: show })
        : none,
      shared: o.arms.includes("shared") ? await heldOutGrade(engine, user, served("shared", "*"), grade) : none,
      base: await heldOutGrade(engine, user, undefined, grade),
    };
  }
  const perSample = (a: Arm) => a.trainMs / a.samples;
  for (const a of Object.values(arms)) for (const ad of a.adapters.values()) disposeAdapter(ad);
  return {
    result,
    msPerSample: { perUser: perSample(arms.perUser), shared: perSample(arms.shared) },
    demos: { perUser: arms.perUser.demos, shared: arms.shared.demos },
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      seeds: { type: "string", default: "1,2,3" },
      rounds: { type: "string", default: "12" },
      perRound: { type: "string", default: "16" },
      k: { type: "string", default: "4" },
      hindsight: { type: "string" },
      lr: { type: "string" },
      advantages: { type: "string" },
      hindsightWeight: { type: "string" },
      rememberedHint: { type: "string" },
      gradClip: { type: "string" },
      baseKl: { type: "string" },
      baseKlScope: { type: "string" },
      relevance: { type: "string" },
      minGain: { type: "string" },
      target: { type: "string" },
      focus: { type: "string" },
      teacherTemp: { type: "string" },
      rank: { type: "string" },
      stylePrompts: { type: "string" },
      /** diagnostics: one arm only ("perUser" or "shared"), and one user's demonstrations and held-out replies */
      arms: { type: "string", default: "perUser,shared" },
      show: { type: "string" },
      users: { type: "string" },
      targets: { type: "string" },
    },
  });
  const o = {
    rounds: Number(values.rounds),
    perRound: Number(values.perRound),
    k: Number(values.k),
    arms: values.arms.split(",").map((a) => z.enum(["perUser", "shared"]).parse(a)),
    show: values.show?.split(",") ?? [],
  };
  // Overrides of the per-user defaults, to measure a setting before it becomes one.
  defaults = PerUserSchema.parse({
    ...(values.hindsight !== undefined ? { hindsightSamples: Number(values.hindsight) } : {}),
    ...(values.lr !== undefined ? { lr: Number(values.lr) } : {}),
    ...(values.advantages !== undefined ? { advantages: values.advantages } : {}),
    ...(values.hindsightWeight !== undefined ? { hindsightWeight: Number(values.hindsightWeight) } : {}),
    ...(values.gradClip !== undefined ? { gradClip: Number(values.gradClip) } : {}),
    ...(values.rememberedHint !== undefined ? { rememberedHint: values.rememberedHint === "true" } : {}),
    ...(values.targets !== undefined ? { targets: values.targets } : {}),
    ...(values.relevance !== undefined ? { hindsightRelevance: values.relevance === "true" } : {}),
    ...(values.minGain !== undefined ? { hindsightMinGain: Number(values.minGain) } : {}),
    ...(values.baseKl !== undefined ? { baseKlCoef: Number(values.baseKl) } : {}),
    ...(values.baseKlScope !== undefined ? { baseKlScope: values.baseKlScope } : {}),
    ...(values.target !== undefined ? { hindsightTarget: values.target } : {}),
    ...(values.focus !== undefined ? { hindsightFocus: values.focus } : {}),
    ...(values.teacherTemp !== undefined ? { hindsightTemperature: Number(values.teacherTemp) } : {}),
    ...(values.stylePrompts !== undefined ? { stylePrompts: Number(values.stylePrompts) } : {}),
    ...(values.rank !== undefined ? { rank: Number(values.rank), alpha: 2 * Number(values.rank) } : {}),
  });
  if (values.users) USERS = values.users.split(",").map(getPersona);
  const engine = new EmbeddedEngine();
  await engine.load("models/base");
  // The frozen base the adapters train on: the checkpoint the engine serves, loaded once more for training.
  const { model: base } = await loadCheckpoint("models/base");
  // The style demonstrations' public prompts (perUser.stylePrompts): the base's pretraining questions minus the held-out
  // split, so no graded question is ever a prompt here.
  const promptPool = await loadPromptPool("models/base");
  console.log(
    `per-user vs shared: ${o.rounds} rounds × ${o.perRound} replies per user, lr ${defaults.lr} (gradient norm ≤ ${defaults.gradClip}), ${defaults.advantages} advantages, hindsight ${defaults.hindsightSamples} per hinted turn (weight ${defaults.hindsightWeight}, teacher confidence ≥ ${defaults.hindsightMinLogprob}; remembered hint ${defaults.rememberedHint}), relevance filter ${defaults.hindsightRelevance}, least gain from the hint ${defaults.hindsightMinGain ?? "off"}, demonstrations' target ${defaults.hindsightTarget} (focus ${defaults.hindsightFocus}, τ ${defaults.hindsightTemperature}), KL to the base β ${defaults.baseKlCoef} (on ${defaults.baseKlScope}), style prompts ${defaults.stylePrompts} per step (of ${promptPool.length}), rank ${defaults.rank} (${defaults.targets})`,
  );
  console.log("seed | user | first reply 'preference and on topic' (preference alone): base / shared / per-user");
  for (const seed of values.seeds.split(",").map(Number)) {
    const { result, msPerSample, demos } = await runSeed(engine, base, promptPool, seed, o);
    for (const [u, r] of Object.entries(result))
      console.log(
        `${seed} | ${u} | ${[r.base, r.shared, r.perUser].map((x) => `${x.both.toFixed(2)} (${x.style.toFixed(2)})`).join(" / ")}`,
      );
    console.log(
      `${seed} | training ms per sample: shared ${msPerSample.shared.toFixed(1)}, per-user ${msPerSample.perUser.toFixed(1)} (${(msPerSample.perUser / msPerSample.shared).toFixed(2)}×); hindsight demos trained: shared ${demos.shared}, per-user ${demos.perUser}`,
    );
  }
  engine.dispose();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
