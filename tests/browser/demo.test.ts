// The demo, live: the three demo experiments (GRPO, OPD, Combine) with their runs and simulated users on, served,
// judged and trained by the running workers (scripts/test-run.ts starts them all). The /simulation page shows the
// users talking, training steps, new versions served and the judged reward per version; the trajectory browser
// marks the traffic as simulated. The README's dashboard screenshot is taken here.
import { mkdirSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { createExperiment } from "../../server/experiments/service";
import { actOnRun, startRun } from "../../server/runs/service";
import { DEMO_EXPERIMENTS, DEMO_SIMULATION, demoConfig } from "../../server/simulation/demo";
import { enableSimulation, simulationProgress, updateSimulation } from "../../server/simulation/service";
import { recentFirstReplies } from "../../server/evaluation/verdict";
import type { Principal } from "../../server/access/principal";
import { makeUser, uniq } from "../helpers/fixtures";
import { BASE_URL, launchBrowser, signInAsNewUser } from "./helpers";
import { createDemoEvalSets } from "../../server/bootstrap/seed";

/** Steps every demo experiment must have taken before the screenshot. */
const MIN_STEPS = 3;
/**
 * How far the Combine demo's judged first replies (the latest versions' ≥ FIRST_REPLIES of them) must rise above the
 * base's before the screenshot. First replies: a reply after "no — use a bullet list" has the instruction in its
 * context, so the mean over every reply credits following corrections, not having learned the preference.
 */
const LEARNED_GAIN = 0.5;
const FIRST_REPLIES = 12;

let browser: Browser;
let actor: Principal;
const demos: { id: string; slug: string; method: string; runId: string }[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  const u = await makeUser("ADMIN");
  actor = { kind: "user", userId: u.id, email: u.email, role: "ADMIN" };
  const suffix = uniq("b");
  for (const d of DEMO_EXPERIMENTS) {
    const config = demoConfig(d);
    const e = await createExperiment(
      actor,
      { name: d.name, slug: `${d.slug}-${suffix}`, description: d.description, config },
      { demo: true },
    );
    const run = await startRun(actor, e.id);
    await enableSimulation(e.id, DEMO_SIMULATION);
    await createDemoEvalSets(e.id); // as the first-start seed: the gate's set and the held-out one
    demos.push({ id: e.id, slug: e.slug, method: config.method, runId: run.id });
  }
});

afterAll(async () => {
  // Users off and runs stopped: three runs training on the samples they have would slow the tests after this one.
  for (const d of demos) {
    await updateSimulation(actor, { experimentId: d.id, enabled: false }).catch(() => {});
    await actOnRun(actor, { id: d.runId, action: "stop" }).catch(() => {});
  }
  await browser?.close();
});

describe("the live demo", () => {
  it("shows simulated users, training steps, new versions served and the reward per version; takes the README screenshot", async () => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    await signInAsNewUser(page);
    await page.goto(`${BASE_URL}/simulation`);
    for (const d of demos) await page.getByTestId(`simulation-${d.slug}`).waitFor();

    // The workers do the rest: simulated conversations through the proxy, judgments, steps, versions.
    const deadline = Date.now() + 720_000;
    for (;;) {
      const steps = await Promise.all(
        demos.map((d) => db().trainingStep.count({ where: { run: { experimentId: d.id } } })),
      );
      if (steps.every((s) => s >= MIN_STEPS)) break;
      if (Date.now() > deadline)
        throw new Error(`the demo did not reach ${MIN_STEPS} steps per experiment in time: ${steps.join(", ")}`);
      await new Promise((r) => setTimeout(r, 2000));
    }
    for (const d of demos) {
      const card = page.getByTestId(`simulation-${d.slug}`);
      // The page polls: wait for it to show what the database says.
      await expect
        .poll(async () => Number(await card.getByTestId("sim-steps").textContent()), { timeout: 30_000 })
        .toBeGreaterThanOrEqual(MIN_STEPS);
      await expect
        .poll(async () => Number(await card.getByTestId("sim-version").textContent()), { timeout: 30_000 })
        .toBeGreaterThanOrEqual(1);
      await card.locator("svg[aria-label='judged reward per policy version'] circle").first().waitFor();
      expect(await card.getByText("users on").count()).toBeGreaterThan(0);
    }
    const served = await db().turn.findMany({
      where: { experimentId: { in: demos.map((d) => d.id) }, policyVersion: { gt: 0 } },
      take: 1,
    });
    expect(served).toHaveLength(1); // a new version answered simulated users

    // The reward curve moves: Combine, the default method and the fastest here, learns Leo's preference unprompted
    // within a few minutes (bench/learning; see the README's learning section).
    const combine = demos.find((d) => d.method === "combine")!;
    const gain = (p: Awaited<ReturnType<typeof simulationProgress>>) => {
      const pooled = recentFirstReplies(p.versions, FIRST_REPLIES);
      const recent = pooled && pooled.firstTurns >= FIRST_REPLIES ? pooled.firstReward : null;
      const base = p.base?.firstReward ?? null;
      return recent === null || base === null ? null : recent - base;
    };
    let progress = await simulationProgress(actor, { experimentId: combine.id, versions: 500 });
    while ((gain(progress) ?? -Infinity) < LEARNED_GAIN) {
      if (Date.now() > deadline)
        throw new Error(
          `Combine's first replies did not rise +${LEARNED_GAIN} above the base's (${progress.base?.firstReward?.toFixed(2)}): ` +
            progress.versions.map((v) => `${v.version}:${v.firstReward?.toFixed(2) ?? "-"}/${v.firstTurns}`).join(" "),
        );
      await new Promise((r) => setTimeout(r, 3000));
      progress = await simulationProgress(actor, { experimentId: combine.id, versions: 500 });
    }
    const combineCard = page.getByTestId(`simulation-${combine.slug}`);
    await expect
      .poll(async () => Number(await combineCard.getByTestId("sim-steps").textContent()), { timeout: 30_000 })
      .toBeGreaterThanOrEqual(progress.steps);

    mkdirSync("docs/screenshots", { recursive: true });
    // The demo's cards, not the whole page: a test database holds many other experiments listed below them.
    const cards = await Promise.all(demos.map((d) => page.getByTestId(`simulation-${d.slug}`).boundingBox()));
    const bottom = Math.max(...cards.map((c) => (c ? c.y + c.height : 0)));
    await page.screenshot({
      path: "docs/screenshots/dashboard.png",
      fullPage: true,
      clip: { x: 0, y: 0, width: 1360, height: Math.ceil(bottom) + 16 },
    });

    // The trajectory browser marks the traffic as simulated, with the persona.
    await page.goto(`${BASE_URL}/sessions`);
    await page.getByText("simulated · leo").first().waitFor();
    await page.close();
  }, 900_000);
});
