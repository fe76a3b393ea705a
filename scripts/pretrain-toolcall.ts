/**
 * Fine-tune the embedded base policy on the tool-call demo's format, so that GRPO on the demo has something to
 * learn (issue #30: "pretrain the base on the tool-call format so it uses tools some of the time and answers
 * correctly rarely").
 *
 *   npx tsx scripts/pretrain-toolcall.ts --seed 1 --steps 600 --out models/toolcall
 *
 * (That exact command produced the committed models/toolcall; see models/toolcall/README.md.)
 *
 * The corpus is the demo's episodes exactly as the episode runner serves them (server/environments/episodes/
 * runner.ts: its system prompt, the calc tool, the instruction of server/environments/demo.ts, the prompt fitted
 * by whole messages at the proxy's default reply cap), on fresh operand pairs, so the held-out demo tasks are not
 * in it. Two kinds of reply are trained:
 * - the first reply: a calc call with the question's expression `--toolRate` of the time, otherwise a boxed guess
 *   (a random number, so wrong); this is the choice GRPO has to move;
 * - the reply after the tool's answer: that answer, boxed. Copying it is taught on every sample, so a call leads
 *   to a right answer and the outcome rewards the choice to call.
 * Starts from models/base (it already knows the chat template and the tool-call syntax from its note lookups).
 * Deterministic given --seed (same machine type, same tfjs).
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { initBackend } from "../server/engine/backend";
import { supervisedStep } from "./lib/supervised";
import { loadCheckpoint, saveCheckpoint } from "../server/engine/checkpoint";
import { fitChat, servingBudget } from "../server/engine/fit";
import { generate } from "../server/engine/generate";
import type { PolicyModel } from "../server/engine/model";
import { Adam } from "../server/engine/optimizer";
import { mulberry32, type Rng } from "../server/engine/rng";
import { encode, END_ID, parseToolCalls, type ChatMessage, type ToolDef } from "../server/engine/tokenizer";
import { demoToolCallTasks } from "../server/environments/demo";
import { toolCallSystem } from "../server/environments/episodes/runner";
import { runTaskTool, TOOL_DEFINITIONS } from "../server/environments/episodes/tools";
import { scoreAnswer } from "../server/environments/tasks/answer";
import type { ToolCallTask } from "../server/environments/tasks/spec";

const argsSchema = z.object({
  seed: z.coerce.number().int().default(1),
  steps: z.coerce.number().int().positive().default(600),
  batch: z.coerce.number().int().positive().default(16),
  lr: z.coerce.number().positive().default(3e-3),
  warmup: z.coerce.number().int().min(0).default(20),
  /** share of first replies that call calc (the rest guess) */
  toolRate: z.coerce.number().min(0).max(1).default(0.15),
  /** the reply cap the proxy serves with (serving.maxTokens' default), which decides how the prompt is fitted */
  replyCap: z.coerce.number().int().positive().default(256),
  init: z.string().default("models/base"),
  out: z.string().default("models/toolcall"),
  /** report a checkpoint's pass@1 on the demo tasks (sampled episodes, no proxy) and exit */
  evaluate: z.string().optional(),
});

const CALC = TOOL_DEFINITIONS.calc as unknown as ToolDef;

/** A demo-shaped task on a fresh operand pair. */
function freshTask(rng: Rng): ToolCallTask {
  const a = 12 + Math.floor(rng() * 88);
  const b = 12 + Math.floor(rng() * 88);
  const product = rng() < 0.5;
  const [template] = demoToolCallTasks(1);
  return {
    ...template,
    key: "fresh",
    instruction: `What is ${a} ${product ? "*" : "+"} ${b}? Use the calc tool, then give the final answer as \\boxed{number}.`,
    answer: String(product ? a * b : a + b),
  };
}

const expressionOf = (task: ToolCallTask) => /What is (\d+ [*+] \d+)\?/.exec(task.instruction)![1];

function opening(task: ToolCallTask): ChatMessage[] {
  return [
    { role: "system", content: toolCallSystem(task.tools) },
    { role: "user", content: task.instruction },
  ];
}

function callMessage(task: ToolCallTask): ChatMessage {
  return {
    role: "assistant",
    content: "",
    tool_calls: [
      {
        id: "call_0",
        type: "function",
        function: { name: "calc", arguments: JSON.stringify({ expression: expressionOf(task) }) },
      },
    ],
  };
}

/** One trained reply: its prompt as served and the reply's token ids. */
function sample(rng: Rng, replyCap: number, toolRate: number): { prompt: number[]; reply: number[] } {
  const task = freshTask(rng);
  const budget = servingBudget(512, replyCap);
  const call = `<tool_call>${JSON.stringify({ name: "calc", arguments: { expression: expressionOf(task) } })}</tool_call>`;
  const u = rng();
  if (u < 0.35) {
    const prompt = fitChat(opening(task), budget, { tools: [CALC], addGenerationPrompt: true });
    const reply = rng() < toolRate ? call : `\\boxed{${100 + Math.floor(rng() * 9900)}}`;
    return { prompt, reply: [...encode(reply), END_ID] };
  }
  if (u < 0.7) {
    // The call's arguments once the call has begun: copying the question's expression is taught here, with the
    // loss after the opening of the call, so the share of replies that call stays `toolRate`.
    const prompt = fitChat(opening(task), budget, { tools: [CALC], addGenerationPrompt: true });
    const cut = call.indexOf('"expression":"') + '"expression":"'.length;
    return { prompt: [...prompt, ...encode(call.slice(0, cut))], reply: [...encode(call.slice(cut)), END_ID] };
  }
  const messages: ChatMessage[] = [
    ...opening(task),
    callMessage(task),
    {
      role: "tool",
      tool_call_id: "call_0",
      content: runTaskTool(task, "calc", JSON.stringify({ expression: expressionOf(task) })),
    },
  ];
  const prompt = fitChat(messages, budget, { tools: [CALC], addGenerationPrompt: true });
  return { prompt, reply: [...encode(`\\boxed{${task.answer}}`), END_ID] };
}

/** Sampled episodes (temperature 1, two steps at most) on the demo's tasks: pass@1, the share that call calc. */
async function demoPassRate(model: PolicyModel, replyCap: number, seed: number) {
  const tasks = demoToolCallTasks();
  let pass = 0;
  let called = 0;
  const budget = servingBudget(model.config.ctx, replyCap);
  for (const [i, task] of tasks.entries()) {
    const messages = opening(task);
    let final: string | null = null;
    for (let step = 0; step < 2 && final === null; step++) {
      const prompt = fitChat(messages, budget, { tools: [CALC], addGenerationPrompt: true });
      const r = await generate(model, prompt, { maxTokens: replyCap, seed: seed * 100_000 + i * 10 + step });
      const { content, toolCalls } = parseToolCalls(r.text);
      if (toolCalls.length === 0) final = content;
      else {
        if (step === 0) called++;
        messages.push({ role: "assistant", content, tool_calls: toolCalls });
        for (const c of toolCalls)
          messages.push({
            role: "tool",
            tool_call_id: c.id,
            content: runTaskTool(task, c.function.name, c.function.arguments),
          });
      }
    }
    if (final !== null && scoreAnswer(task, final) === 1) pass++;
  }
  return { pass1: pass / tasks.length, toolRate: called / tasks.length, n: tasks.length };
}

async function main() {
  const { values } = parseArgs({
    options: Object.fromEntries(Object.keys(argsSchema.shape).map((k) => [k, { type: "string" as const }])),
  });
  const args = argsSchema.parse(values);
  const info = await initBackend();
  if (args.evaluate) {
    const { model } = await loadCheckpoint(args.evaluate);
    console.log(JSON.stringify(await demoPassRate(model, args.replyCap, args.seed)));
    return;
  }
  const { model } = await loadCheckpoint(args.init);
  console.log(`backend ${info.backend} simd=${info.simd}; from ${args.init}, seed=${args.seed} steps=${args.steps}`);
  const adam = new Adam({ lr: args.lr, beta1: 0.9, beta2: 0.99 });
  const rng = mulberry32(args.seed ^ 0x7001);
  const t0 = performance.now();
  let ema = NaN;
  for (let step = 1; step <= args.steps; step++) {
    const items = Array.from({ length: args.batch }, () => sample(rng, args.replyCap, args.toolRate));
    // The loss is on the replies only: the prompts are the runner's fixed text, nothing to learn there.
    const { loss } = supervisedStep(
      model,
      adam,
      items.map((s) => ({ promptIds: s.prompt, responseIds: s.reply })),
      step,
      args,
    );
    ema = Number.isNaN(ema) ? loss : 0.95 * ema + 0.05 * loss;
    if (step % 25 === 0 || step === 1) {
      const s = (performance.now() - t0) / 1000;
      console.log(`step ${step}/${args.steps} loss ${loss.toFixed(3)} ema ${ema.toFixed(3)} ${s.toFixed(0)}s`);
    }
  }
  const rate = await demoPassRate(model, args.replyCap, args.seed);
  console.log(`demo tasks, sampled: ${JSON.stringify(rate)}`);
  const meta = await saveCheckpoint(args.out, model, {
    version: 0,
    step: args.steps,
    extra: {
      seed: args.seed,
      init: args.init,
      toolRate: args.toolRate,
      finalLossEma: ema,
      demoPass1: rate.pass1,
      trainSeconds: (performance.now() - t0) / 1000,
    },
  });
  console.log(`saved ${args.out} sha256=${meta.sha256}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
