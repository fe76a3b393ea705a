// hf-local end to end against the running API, with the real entry point (python -m integrations.hf.train) on
// the tiny CPU model: it reports its policy endpoint as the run's rolloutUrl and its frozen base as the run's
// PRM, leases a judged batch, recomputes π_old, trains, swaps the adapter into serving and acknowledges the step
// with the checkpoint path. The console's own SGLang teacher client (createSglangTeacher: ChatML rendered in
// TypeScript, /tokenize, /generate with SGLang's [None]+… convention) then scores a reply the frozen base sampled,
// and must reproduce the log-probs the sampler recorded for those very ids: two code paths (incremental decoding
// behind the server's own template vs teacher-forced scoring of the TypeScript render) that agree only when the
// template, the tokenizer and the log-prob offsets all line up. Once with LoRA, once with full fine-tuning
// (HF_FINETUNE=full: the frozen base is a second copy and the checkpoint a whole model folder).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSglangTeacher } from "../../../../server/judge/core/teacherClients";
import { StreamAccumulator, fromCompletion } from "../../../../server/proxy/accumulate";
import { terminateGroup } from "../../../../server/runs/backends/localProcess/processGroup";
import { db } from "../../../../server/platform/db/client";
import { startApiServer } from "../../../helpers/apiServer";
import { ADMIN, makeExperiment, makeRun } from "../../../helpers/fixtures";
import { torchPython } from "../../../helpers/torchPython";
import { waitFor } from "../../../helpers/waitFor";
import { makeJudgedSession, trainerKey } from "./helpers";

const root = path.resolve(import.meta.dirname, "../../../..");
const python = torchPython();
/** The tiny model's byte tokenizer: "ok" then <|im_end|> (257). */
const OK_IDS = [111, 107, 257];

let api: Awaited<ReturnType<typeof startApiServer>>;
const trainers: ChildProcess[] = [];

beforeAll(async () => {
  api = await startApiServer();
});
afterAll(async () => {
  for (const trainer of trainers) if (trainer.pid) await terminateGroup(trainer.pid, 2000);
  api.close();
});

/** A RUNNING hf-local run of a GRPO experiment on the tiny model, and a way to start its trainer process (again). */
async function hfLocalRun(finetune = "lora") {
  const e = await makeExperiment(
    {
      method: "grpo",
      policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30001/v1", model: "tiny" },
      trainer: { backend: "hf-local" },
    },
    { by: ADMIN },
  );
  const run = await makeRun(e.id, { status: "RUNNING", trainerBackend: "hf-local" });
  const saveDir = path.join(root, ".test-artifacts", `hf-local-${run.id}`);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    PYTHONDONTWRITEBYTECODE: "1",
    CONTROL_PLANE_URL: api.url,
    CONTROL_PLANE_API_KEY: await trainerKey(e.id),
    RUN_ID: run.id,
    OPENCLAW_METHOD: "grpo",
    HF_MODEL: "tiny",
    HF_FINETUNE: finetune,
    HF_BATCH_SIZE: "2",
    HF_LEARNING_RATE: "0.01",
    HF_SERVE_PORT: "0",
    HF_SAVE_DIR: saveDir,
    OPENCLAW_HEARTBEAT_S: "1",
  };
  const start = () => {
    const child = spawn(python!, ["-m", "integrations.hf.train"], {
      cwd: root,
      detached: true,
      env: env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    trainers.push(child);
    const log = { text: "" };
    child.stdout!.on("data", (d: Buffer) => (log.text += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (log.text += d.toString()));
    return { child, log };
  };
  const checkpoint = (step: number) => path.join(saveDir, run.id, `step-${String(step).padStart(6, "0")}`);
  return { e, run, start, checkpoint };
}

describe.skipIf(!python)("hf-local against the console (needs torch)", () => {
  it.each([
    ["lora", "adapter.pt"],
    ["full", "model.pt"],
  ])(
    "%s: serves, reports its endpoints, trains one leased batch and acknowledges it with the checkpoint",
    async (finetune, weightsFile) => {
      const { e, run, start, checkpoint: checkpointOf } = await hfLocalRun(finetune);
      await makeJudgedSession(e.id, run.id, 2, { tokenIds: () => OK_IDS });
      const { log } = start();

      const step = await waitFor(
        "the first step acknowledged",
        () => db().trainingStep.findFirst({ where: { runId: run.id, step: 1 }, include: { samples: true } }),
        240_000,
      );
      const output = log.text;
      expect(step.samples, output).toHaveLength(2);
      const version = await db().policyVersion.findFirstOrThrow({ where: { runId: run.id, version: 1 } });
      const checkpoint = checkpointOf(1);
      expect(version.checkpointPath).toBe(checkpoint);
      expect(existsSync(path.join(checkpoint, weightsFile)), output).toBe(true);
      const metrics = step.metrics as Record<string, number>;
      expect(metrics["train/samples"]).toBe(2);
      expect(metrics["train/tokens"]).toBe(2 * OK_IDS.length);
      // The recorded log-probs were made up, so the behaviour/trainer mismatch is large and finite.
      expect(Number.isFinite(metrics["train/logprob_mismatch"])).toBe(true);

      const stored = await db().run.findUniqueOrThrow({ where: { id: run.id } });
      expect(stored.rolloutUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(stored.prmUrl).toBe(stored.rolloutUrl!.replace(/\/v1$/, "/base/v1"));
      const health = await (await fetch(stored.rolloutUrl!.replace(/\/v1$/, "/health"))).json();
      expect(health).toMatchObject({ version: 1, checkpoint });

      // The frozen base samples a reply (ids + behaviour log-probs), then the console's SGLang teacher scores it.
      const messages = [
        { role: "system" as const, content: "You are terse." },
        { role: "user" as const, content: "say ok" },
      ];
      const sampled = await (
        await fetch(`${stored.prmUrl}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "tiny", messages, max_tokens: 8, seed: 5 }),
        })
      ).json();
      const ids: number[] = sampled.choices[0].token_ids;
      const behaviour: number[] = sampled.choices[0].logprobs.content.map((c: { logprob: number }) => c.logprob);
      expect(ids.length).toBeGreaterThan(0);
      const teacher = createSglangTeacher({ baseUrl: stored.prmUrl! });
      const scored = await teacher.score(messages, ids);
      expect(scored).toHaveLength(ids.length);
      scored.forEach((lp, k) => expect(lp).toBeCloseTo(behaviour[k]!, 4));

      // What the proxy records from the policy endpoint, streamed or not: the sampled ids and their log-probs.
      const ask = (stream: boolean) =>
        fetch(`${stored.rolloutUrl}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "tiny", messages, max_tokens: 8, seed: 9, stream }),
        });
      const whole = fromCompletion(await (await ask(false)).json());
      const acc = new StreamAccumulator();
      for (const line of (await (await ask(true)).text()).split("\n")) {
        if (line.startsWith("data: ") && line !== "data: [DONE]") acc.push(JSON.parse(line.slice(6)));
      }
      const streamed = acc.result();
      expect(whole.tokenIds.length).toBeGreaterThan(0);
      expect(whole.logprobs).toHaveLength(whole.tokenIds.length);
      expect(streamed.tokenIds).toEqual(whole.tokenIds);
      expect(streamed.logprobs).toEqual(whole.logprobs);
      expect(streamed.content).toBe(whole.content);
    },
    300_000,
  );

  it("restarted on the same run: resumes the run's newest checkpoint and numbers its steps past the last one", async () => {
    const { e, run, start, checkpoint } = await hfLocalRun();
    const first = start();
    await makeJudgedSession(e.id, run.id, 2, { tokenIds: () => OK_IDS });
    await waitFor(
      "step 1 acknowledged",
      () => db().trainingStep.findFirst({ where: { runId: run.id, step: 1 } }),
      240_000,
    );
    await terminateGroup(first.child.pid!, 2000);

    const second = start();
    await waitFor("the restarted trainer resumed", () => second.log.text.includes("resumed from"), 240_000);
    const stored = await db().run.findUniqueOrThrow({ where: { id: run.id } });
    // Before it trains anything, it serves the run's newest version, not the base.
    const health = await (await fetch(stored.rolloutUrl!.replace(/\/v1$/, "/health"))).json();
    expect(health, second.log.text).toMatchObject({ version: 1, checkpoint: checkpoint(1) });

    await makeJudgedSession(e.id, run.id, 2, { tokenIds: () => OK_IDS });
    const step2 = await waitFor(
      "step 2 acknowledged",
      () => db().trainingStep.findFirst({ where: { runId: run.id, step: 2 } }),
      240_000,
    );
    expect(step2.policyVersion).toBe(2);
    const version = await db().policyVersion.findFirstOrThrow({ where: { runId: run.id, version: 2 } });
    expect(version).toMatchObject({ parentVersion: 1, checkpointPath: checkpoint(2), step: 2 });
    // Nothing was refused as "already recorded" on the way.
    expect(second.log.text).not.toMatch(/dropping lease/);
  }, 600_000);
});
