// The Evaluation page in a real browser against the running app: the per-version chart (eval score with
// its CI beside the training reward), a candidate held back by the gate with its reason, a side-by-side
// comparison of two versions on the same prompts, and a new evaluation appearing live.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { ExperimentConfigSchema } from "../../server/config/experimentConfig";
import { expectedJudgeVersion } from "../../server/judge/worker/settings";
import { createPersonaEvalSet } from "../../server/evaluation/service";
import { judgedTurn } from "../integration/evaluation/helpers";
import { ADMIN, makeExperiment } from "../helpers/fixtures";
import { EnvironmentCreateInput, TaskSetImportInput } from "../../server/environments/schemas";
import { createEnvironment, importTaskSet } from "../../server/environments/service";
import { BASE_URL, launchBrowser, signInAsNewUser } from "./helpers";

let browser: Browser;
let exp: { id: string };
let setVersionId: string;
let disagreeing: string;

const HELD = "eval 0.250 < served v1's 0.750 − tolerance 0.050";

/**
 * An evaluation row with one reply per item: `good` items get a bullet list (score 1), the rest prose (0); draw 1 a
 * confirmation on fresh seeds.
 */
async function seedEvaluation(version: number, good: number, on = { experimentId: "", setVersionId: "" }, draw = 0) {
  const experimentId = on.experimentId || exp.id;
  const sv = on.setVersionId || setVersionId;
  const items = await db().evalItem.findMany({ where: { setVersionId: sv }, orderBy: { index: "asc" } });
  const scores = items.map((_, i): number => (i < good ? 1 : 0));
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  const ev = await db().evaluation.create({
    data: {
      experimentId,
      policyVersion: version,
      setVersionId: sv,
      draw,
      status: "DONE",
      grader: "persona",
      graderVersion: "persona-v1",
      items: items.length,
      replies: items.length,
      mean,
      ciLow: Math.max(0, mean - 0.2),
      ciHigh: Math.min(1, mean + 0.2),
      replyTokens: 40 * items.length,
      durationMs: 2500,
      finishedAt: new Date(),
    },
  });
  await db().evalScore.createMany({
    data: items.map((it, i) => ({
      evaluationId: ev.id,
      itemId: it.id,
      sample: 0,
      seed: 1 + i,
      score: scores[i]!,
      grader: "persona",
      graderVersion: "persona-v1",
      reply: scores[i] ? `- v${version} point one\n- v${version} point two` : `Version ${version} answers in prose.`,
    })),
  });
}

beforeAll(async () => {
  browser = await launchBrowser();
  // Gated, but with no run and no checkpoints on disk: the running workers leave these rows as they are.
  exp = await makeExperiment({
    method: "grpo",
    serving: { promotion: "gated", gate: { tolerance: 0.05 } },
    evaluation: { enabled: true, k: 1 },
  });
  const config = ExperimentConfigSchema.parse(
    (await db().experiment.findUniqueOrThrow({ where: { id: exp.id } })).config,
  );
  setVersionId = (
    await createPersonaEvalSet(null, { experimentId: exp.id, name: "held-out personas", personas: ["leo"] })
  ).setVersionId;
  await db().policyVersion.create({
    data: { experimentId: exp.id, version: 1, parentVersion: 0, status: "ACTIVE", promotedAt: new Date() },
  });
  await db().policyVersion.create({
    data: { experimentId: exp.id, version: 2, parentVersion: 1, status: "CANDIDATE", gateReason: HELD },
  });
  await db().policyVersion.create({
    data: {
      experimentId: exp.id,
      version: 3,
      parentVersion: 1,
      status: "CANDIDATE",
      gateReason: "awaiting evaluation (gated promotion)",
    },
  });
  // Items: 8 held-out questions for Leo. v0 2/8, v1 6/8, v2 2/8 (the version the gate held back).
  await seedEvaluation(0, 2);
  await seedEvaluation(1, 6);
  await seedEvaluation(2, 2);
  // Training reward (live judged turns) under the experiment's own judge version, so the judge worker leaves them.
  const jv = expectedJudgeVersion(config);
  for (const [version, scores] of [
    [0, [-1, -1, 1]],
    [1, [1, 1, -1]],
    [2, [1, 1, 1]],
  ] as const)
    for (const s of scores) await judgedTurn(exp.id, version, s, undefined, jv);
  // Two turns with user feedback: one agrees with the judge, one does not.
  await judgedTurn(exp.id, 1, 1, { source: "USER", value: 1 }, jv);
  disagreeing = await judgedTurn(exp.id, 1, 1, { source: "USER", value: -1 }, jv);
});
afterAll(() => browser?.close());

async function newPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await signInAsNewUser(page);
  return page;
}

describe("Evaluation page", () => {
  it("charts eval score per version beside the training reward, shows the held-back candidate, compares two versions, and updates live", async () => {
    const page = await newPage();
    await page.goto(`${BASE_URL}/evaluation?experimentId=${exp.id}`);
    const chart = page.getByTestId("eval-chart");
    await expect.poll(() => chart.locator(".recharts-scatter-symbol").count()).toBe(3);
    await expect.poll(() => chart.locator(".recharts-line-curve").count()).toBe(1);
    await expect.poll(() => page.getByTestId("eval-served").textContent()).toBe("1");

    const held = page.getByTestId("candidate-2");
    await expect.poll(() => held.textContent()).toContain(HELD);
    await expect.poll(() => page.getByTestId("candidate-3").textContent()).toContain("awaiting evaluation");

    await page.getByLabel("Before version").selectOption("1");
    await page.getByLabel("After version").selectOption("2");
    const compare = page.getByTestId("eval-compare");
    await expect.poll(() => compare.locator("tbody tr").count()).toBe(8);
    const first = compare.locator("tbody tr").first();
    await expect.poll(() => first.textContent()).toContain("v1 point one");
    expect(await first.textContent()).toContain("v2 point one");
    const fourth = compare.locator("tbody tr").nth(3);
    expect(await fourth.textContent()).toContain("v1 point one");
    expect(await fourth.textContent()).toContain("Version 2 answers in prose.");
    expect(await compare.locator("thead").textContent()).toMatch(/v1 · 0\.75.*v2 · 0\.25/);

    // A new evaluation lands (as the worker would write it): the chart picks it up without a reload.
    await seedEvaluation(3, 7);
    await expect.poll(() => chart.locator(".recharts-scatter-symbol").count(), { timeout: 20_000 }).toBe(4);
    await page.close();
  }, 90_000);

  it("with a gate set of its own, shows it and each version's gate score (on the gate's latest draw) beside the eval score", async () => {
    // Every version the scheduler would want is evaluated already (no checkpoints on disk): the workers queue nothing.
    const gated = await makeExperiment({
      method: "grpo",
      serving: { promotion: "gated", gate: { tolerance: 0.05, set: "asked questions", confirm: true } },
      evaluation: { enabled: true, k: 1, set: "held-out personas" },
    });
    const reported = await createPersonaEvalSet(null, {
      experimentId: gated.id,
      name: "held-out personas",
      personas: ["leo"],
    });
    const asked = await createPersonaEvalSet(null, {
      experimentId: gated.id,
      name: "asked questions",
      personas: ["leo"],
      questions: "asked",
    });
    await db().policyVersion.create({
      data: { experimentId: gated.id, version: 1, parentVersion: 0, status: "ACTIVE", promotedAt: new Date() },
    });
    const on = (sv: { setVersionId: string }) => ({ experimentId: gated.id, setVersionId: sv.setVersionId });
    await seedEvaluation(0, 1, on(reported)); // held-out: 1 of 8
    await seedEvaluation(1, 6, on(reported)); // 6 of 8
    await seedEvaluation(0, 0, on(asked)); // asked: 0 of 14
    await seedEvaluation(1, 7, on(asked)); // 7 of 14
    await seedEvaluation(1, 5, on(asked), 1); // its promotion's fresh draw: 5 of 14
    const page = await newPage();
    await page.goto(`${BASE_URL}/evaluation?experimentId=${gated.id}`);
    await expect
      .poll(() => page.getByTestId("eval-gate-set").textContent())
      .toBe("asked questions v1 (14 prompts): the gate reads this set, not the eval set");
    // the gate's score on its own set, on the latest draw it read (serving.gate.confirm)
    await expect.poll(() => page.getByTestId("gate-score-1").textContent()).toBe("0.36 (draw 1)");
    expect(await page.getByTestId("gate-score-0").textContent()).toBe("0.00");
    expect(await page.getByTestId("eval-summary").textContent()).toContain("compared again on fresh seeds");
    const row = page.getByTestId("eval-versions").locator("tbody tr").first(); // newest first: v1
    expect(await row.textContent()).toContain("0.75 [");
    await page.close();
  }, 60_000);

  it("shows judge–human agreement and sends the disagreeing turns to a review queue in one click", async () => {
    const page = await newPage();
    await page.goto(`${BASE_URL}/evaluation?experimentId=${exp.id}`);
    const card = page.getByTestId("eval-agreement");
    await expect.poll(() => card.textContent()).toMatch(/2 labelled turns · accuracy 0\.50 · κ 0\.00/);
    await card.getByRole("button", { name: "Review these 1 in a queue" }).click();
    await page.waitForURL(/\/review\/[^/]+$/);
    const queueId = new URL(page.url()).pathname.split("/").pop()!;
    const items = await db().reviewItem.findMany({ where: { queueId } });
    expect(items.map((i) => i.turnId)).toContain(disagreeing);

    // From the turn page, the turn's request goes into the experiment's eval set as its next version.
    await page.goto(`${BASE_URL}/trajectories/${disagreeing}`);
    await page.getByRole("button", { name: "Add to eval set" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("added to held-out personas v2");
    const v2 = await db().evalSetVersion.findFirstOrThrow({
      where: { set: { experimentId: exp.id }, version: 2 },
      include: { items: { orderBy: { index: "asc" } } },
    });
    expect(v2.items.at(-1)).toMatchObject({ key: `turn/${disagreeing}`, sourceTurnId: disagreeing });
    expect(v2.items).toHaveLength(9);
    await page.close();
  }, 60_000);

  it("shows an environment experiment's held-out pass@1 and pass@k per version with the gate's reason", async () => {
    // Evaluation on, but every version already evaluated (pinned episodes below): the evaluate worker queues nothing.
    const env = await makeExperiment({
      method: "grpo",
      evaluation: { enabled: true, tasks: { taskSet: "sums", environment: "tc", k: 2 } },
    });
    const environmentId = (
      await createEnvironment(ADMIN, EnvironmentCreateInput.parse({ experiment: env.id, name: "tc", tools: ["calc"] }))
    ).id;
    await importTaskSet(
      ADMIN,
      TaskSetImportInput.parse({
        experiment: env.id,
        name: "sums",
        format: "jsonl",
        text: [1, 2, 3, 4]
          .map((i) =>
            JSON.stringify({ id: `s${i}`, prompt: `What is ${i} + ${i}?`, answer: String(2 * i), tools: ["calc"] }),
          )
          .join("\n"),
        heldOutFraction: 0.5,
      }),
    );
    const held = await db().task.findMany({
      where: { setVersion: { set: { experimentId: env.id } }, split: "heldout" },
    });
    expect(held).toHaveLength(2);
    await db().policyVersion.create({
      data: { experimentId: env.id, version: 1, parentVersion: 0, status: "CANDIDATE", gateReason: "held: test" },
    });
    // v0 passes 1 of 4 attempts, v1 all 4.
    for (const [version, passes] of [
      [0, 1],
      [1, 4],
    ] as const)
      await db().episode.createMany({
        data: held.flatMap((t, ti) =>
          [0, 1].map((s) => ({
            experimentId: env.id,
            environmentId,
            taskId: t.id,
            sampleIndex: s,
            policyVersion: version,
            status: "DONE" as const,
            outcome: ti * 2 + s < passes ? 1 : -1,
            finishedAt: new Date(),
          })),
        ),
      });
    const page = await newPage();
    await page.goto(`${BASE_URL}/evaluation?experimentId=${env.id}`);
    const card = page.getByTestId("task-pass-rates");
    await expect.poll(() => card.textContent()).toContain("sums v1, 2 held-out tasks × 2 episodes in tc");
    const v0 = await page.getByTestId("task-pass-0").textContent();
    expect(v0).toMatch(/0\.25 \[0\.\d\d, 0\.\d\d\]/);
    expect(v0).toContain("1/4 passed");
    const v1 = await page.getByTestId("task-pass-1").textContent();
    expect(v1).toMatch(/1\.00 \[0\.\d\d, 1\.00\]/);
    expect(v1).toContain("held: test");
    await page.close();
  }, 60_000);

  it("warns on the experiment page when the judge disagrees with humans", async () => {
    const low = await makeExperiment({ method: "grpo", evaluation: { agreement: { minLabeled: 2 } } });
    const jv = expectedJudgeVersion(
      ExperimentConfigSchema.parse((await db().experiment.findUniqueOrThrow({ where: { id: low.id } })).config),
    );
    await judgedTurn(low.id, 0, 1, { source: "USER", value: 1 }, jv);
    await judgedTurn(low.id, 0, 1, { source: "REVIEWER", value: -1 }, jv);
    const page = await newPage();
    await page.goto(`${BASE_URL}/experiments/${low.id}`);
    const warning = page.getByRole("status").filter({ hasText: "Judge–human agreement is low" });
    await expect.poll(() => warning.textContent()).toMatch(/κ = 0\.00 \(< 0\.6\) over 2 labelled turns/);
    await page.close();
  }, 60_000);
});
