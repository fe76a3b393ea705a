// What a first-time user hit in the console (issue 18), in a real browser against the running app: creating a
// review queue, review hotkeys after a fixed label, a phone-width window, the simulated-users page's base figure,
// a reviewer's write controls, time-only metric series, rows as links, promote/rollback from the experiment page,
// and one chart overlaying runs of different experiments.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { ExperimentConfigSchema } from "../../server/config/experimentConfig";
import { expectedJudgeVersion } from "../../server/judge/worker/settings";
import { seedExperiment, seedJudgment, seedRun, seedSession } from "../integration/dashboard/seed";
import { BASE_URL, launchBrowser, signInAsNewUser } from "./helpers";

let browser: Browser;
let exp: Awaited<ReturnType<typeof seedExperiment>>;
let judgeVersion: string;
let sessionId: string;
let turnIds: string[];

beforeAll(async () => {
  browser = await launchBrowser();
  exp = await seedExperiment({ method: "grpo" });
  judgeVersion = expectedJudgeVersion(ExperimentConfigSchema.parse(exp.config));
  const runId = (await seedRun(exp.id)).id;
  const { session, turns } = await seedSession(
    exp.id,
    [
      { user: "Plan a weekend in Lisbon", reply: "Day one: Alfama and the castle.", runId },
      { user: "Shorter please", reply: "Alfama, castle, Belém.", runId },
      { user: "And food?", reply: "Try pastéis de nata in Belém.", runId },
      { user: "Thanks", reply: "Enjoy your trip!", runId },
    ],
    { externalId: `console-${exp.slug}` },
  );
  sessionId = session.id;
  turnIds = turns.map((t) => t.id);
  for (const id of turnIds) await seedJudgment(id, { score: 1, votes: [1, 1, 1], judgeVersion });
});
afterAll(() => browser?.close());

async function newPage(
  viewport = { width: 1400, height: 950 },
  role: "ADMIN" | "REVIEWER" | "VIEWER" = "ADMIN",
): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await signInAsNewUser(page, role);
  return page;
}

async function createQueue(page: Page, name: string) {
  await page.goto(`${BASE_URL}/review`);
  const form = page.getByRole("form", { name: "New review queue" });
  await form.getByLabel("Experiment").selectOption(exp.id);
  await form.getByLabel("Queue name").fill(name);
  await form.getByRole("button", { name: "Create queue" }).click();
  return page.getByTestId("queues-table").locator("tr", { hasText: name });
}

describe("console fixes in the browser", () => {
  it("creating a review queue shows it in the list with no error, and empties the form", async () => {
    const page = await newPage();
    const name = `Queue ${exp.slug}`;
    const row = await createQueue(page, name);
    await row.waitFor();
    expect(await page.locator(".form-error").count()).toBe(0);
    expect(await page.getByText("No review queues yet").count()).toBe(0);
    expect(await page.getByRole("form", { name: "New review queue" }).getByLabel("Queue name").inputValue()).toBe("");
    expect(await db().reviewQueue.count({ where: { experimentId: exp.id, name } })).toBe(1);
    await page.close();
  });

  it("after a fixed label saved from the hint box, the next item starts unfocused and its hotkeys work", async () => {
    const page = await newPage();
    const row = await createQueue(page, `Hotkeys ${exp.slug}`);
    await row.getByRole("link", { name: "Review" }).click();
    const item = page.getByTestId("review-item");
    await item.waitFor();
    const first = await item.getAttribute("data-turn-id");
    await page.getByTestId(`annot-${first}`).waitFor();
    await page.keyboard.press("-");
    await page.keyboard.press("h");
    await page.keyboard.type("Be shorter.");
    await page.keyboard.press("Control+Enter");
    await page
      .getByTestId("review-status")
      .getByText(/Fixed & accepted/)
      .waitFor();
    await expect.poll(() => item.getAttribute("data-turn-id")).not.toBe(first);
    const second = (await item.getAttribute("data-turn-id"))!;
    await page.getByTestId(`annot-${second}`).waitFor();
    expect(await page.evaluate(() => document.activeElement?.tagName ?? "")).not.toBe("TEXTAREA");
    // `a` accepts the second item instead of being typed into its hint box.
    await page.keyboard.press("a");
    await page
      .getByTestId("review-status")
      .getByText(/^Accepted turn/)
      .waitFor();
    await expect.poll(() => item.getAttribute("data-turn-id")).not.toBe(second);
    expect(await page.getByLabel("Hint").inputValue()).toBe("");
    const verdicts = await db().reviewSubmission.findMany({
      where: { item: { turnId: { in: [first!, second] } } },
      select: { verdict: true, hint: true, item: { select: { turnId: true } } },
    });
    expect(verdicts.find((v) => v.item.turnId === second)).toMatchObject({ verdict: "ACCEPT", hint: null });
    await page.close();
  });

  it("at 390 px the main pages do not scroll sideways and the navigation collapses behind a menu button", async () => {
    const page = await newPage({ width: 390, height: 844 });
    const queue = await db().reviewQueue.findFirstOrThrow({ where: { experimentId: exp.id } });
    const pages = [
      "/experiments",
      `/experiments/${exp.id}`,
      "/experiments/new",
      `/trajectories?experimentId=${exp.id}`,
      `/trajectories/${turnIds[0]}`,
      "/sessions",
      `/sessions/${sessionId}`,
      "/review",
      `/review/${queue.id}`,
      `/metrics?experimentId=${exp.id}`,
      `/playground?experimentId=${exp.id}`,
      "/simulation",
      "/workers",
      "/settings/users",
      "/settings/keys",
    ];
    const wide: string[] = [];
    for (const p of pages) {
      await page.goto(`${BASE_URL}${p}`);
      await page.locator("main h1").first().waitFor();
      await page.waitForLoadState("networkidle").catch(() => {});
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > 390) wide.push(`${p}: ${width} px`);
    }
    expect(wide).toEqual([]);

    const menu = page.getByRole("button", { name: "Menu" });
    const link = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Trajectories" });
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await link.isVisible()).toBe(false);
    await menu.click();
    await link.waitFor({ state: "visible" });
    await link.click();
    await page.waitForURL(/\/trajectories/);
    await link.waitFor({ state: "hidden" });
    await page.close();
  });

  it("the simulated-users page gives version 0's judged first replies as the base, however many versions came after", async () => {
    // Two conversations at the base (first replies −1 and 0, mean −0.5; a later −1 reply in the first), then 105
    // trained versions each opening one conversation at +1: more than the 100 the chart lists.
    const sim = await seedExperiment({ method: "grpo" });
    const jv = expectedJudgeVersion(ExperimentConfigSchema.parse(sim.config));
    const sessions: { policyVersion: number; score: -1 | 0 | 1 }[][] = [
      [
        { policyVersion: 0, score: -1 },
        { policyVersion: 0, score: -1 },
      ],
      [{ policyVersion: 0, score: 0 }],
      ...Array.from({ length: 105 }, (_, i) => [{ policyVersion: i + 1, score: 1 as const }]),
    ];
    for (const turnsOf of sessions) {
      const specs = turnsOf.map((t, i) => ({
        user: `question ${i}`,
        reply: `answer ${i}`,
        policyVersion: t.policyVersion,
        next: "ok",
      }));
      const { turns } = await seedSession(sim.id, specs, { simulated: true });
      for (const [i, t] of turns.entries())
        await seedJudgment(t.id, { score: turnsOf[i]!.score, votes: [turnsOf[i]!.score], judgeVersion: jv });
    }
    const page = await newPage();
    await page.goto(`${BASE_URL}/simulation`);
    const card = page.getByTestId(`simulation-${sim.slug}`);
    await card.getByTestId("sim-base").waitFor();
    expect(await card.getByTestId("sim-base").textContent()).toBe("-0.50");
    expect(await card.getByTestId("sim-reward").textContent()).toMatch(
      /-0\.50 at the base \(version 0, 2 replies\) → \+1\.00 now/,
    );
    // Every reply: the base's three (−1, −1, 0) average −0.67.
    expect(await card.getByTestId("sim-reward-all").textContent()).toMatch(/-0\.67 at the base → \+1\.00 now/);
    expect(await card.getByTestId("base-line").textContent()).toContain("base (version 0) -0.50");
    // The chart's axis starts where the listed versions start, not at a mislabelled "version 0".
    expect(await card.getByText("version 0 (base)").count()).toBe(0);
    await page.close();
  });

  it("a reviewer sees no enabled write control, and the reason on hover", async () => {
    const page = await newPage({ width: 1400, height: 950 }, "REVIEWER");
    const writeNames =
      /^(New experiment|Edit|Clone|Archive|Unarchive|Delete|Start run|Pause|Resume|Stop run.*|Start users|Stop users|Save settings|Create queue|Add user|Create key|Promote.*|Roll back.*|Serve base.*)$/;
    const enabled: string[] = [];
    for (const p of [
      "/experiments",
      `/experiments/${exp.id}`,
      "/simulation",
      "/review",
      "/settings/users",
      "/settings/keys",
    ]) {
      await page.goto(`${BASE_URL}${p}`);
      await page.locator("main h1").first().waitFor();
      await page.waitForLoadState("networkidle").catch(() => {});
      for (const el of await page.locator('main button:enabled:not([aria-disabled="true"]), main a.button').all()) {
        const name = ((await el.textContent()) ?? "").trim();
        if (writeNames.test(name)) enabled.push(`${p}: ${name}`);
      }
    }
    expect(enabled).toEqual([]);
    await page.goto(`${BASE_URL}/experiments/${exp.id}`);
    const clone = page.getByRole("button", { name: "Clone" });
    expect(await clone.isDisabled()).toBe(true);
    await expect.poll(() => clone.getAttribute("title")).toBe("Needs the admin role: you are signed in as a reviewer.");
    await page.close();
  });

  it("time-only series (recorded without a step) render on the time axis while the page is on Step", async () => {
    const t = Date.now();
    await db().metricPoint.createMany({
      data: Array.from({ length: 30 }, (_, i) => ({
        experimentId: exp.id,
        runId: null,
        name: "judge/vote_agreement",
        step: null,
        value: i / 30,
        ts: new Date(t - (30 - i) * 1000),
      })),
    });
    const page = await newPage();
    await page.goto(`${BASE_URL}/metrics?experimentId=${exp.id}`);
    expect(await page.getByLabel("X axis").inputValue()).toBe("step");
    const chart = page.getByTestId("chart-judge/vote_agreement");
    await chart.waitFor();
    await expect.poll(() => chart.getAttribute("data-points")).toBe("30");
    await chart.locator(".recharts-line path").first().waitFor();
    expect(await chart.getByText("time axis: recorded without a step").count()).toBe(1);
    // The axis is in the URL: a reload keeps it.
    await page.getByLabel("X axis").selectOption("time");
    await page.waitForURL(/axis=time/);
    await page.reload();
    expect(await page.getByLabel("X axis").inputValue()).toBe("time");
    await page.close();
  });

  it("trajectory and session rows are links, and sessions name their experiment", async () => {
    const page = await newPage();
    await page.goto(`${BASE_URL}/trajectories?experimentId=${exp.id}`);
    const turnLinks = page.getByTestId("turns-list").locator('[role="row"] a.rowlink');
    await expect.poll(() => turnLinks.count()).toBe(4);
    const hrefs = await turnLinks.evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    expect(hrefs.sort()).toEqual(turnIds.map((id) => `/trajectories/${id}`).sort());
    await page.goto(`${BASE_URL}/sessions?experimentId=${exp.id}`);
    const row = page.getByTestId("sessions-list").locator('[role="row"]', { hasText: `console-${exp.slug}` });
    await row.waitFor();
    expect(await row.locator("a.rowlink").getAttribute("href")).toBe(`/sessions/${sessionId}`);
    expect(await row.textContent()).toContain(exp.name);
    await row.locator("a.rowlink").focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(new RegExp(`/sessions/${sessionId}$`));
    await page.close();
  });

  it("the experiment page says whether it is learning, with the numbers and the rule", async () => {
    // 12 conversations at the base whose first replies fail, then 12 on version 1 whose first replies pass.
    const e = await seedExperiment({ method: "combine" });
    for (const [version, score] of [
      [0, -1],
      [1, 1],
    ] as const)
      for (let i = 0; i < 12; i++) {
        const { turns } = await seedSession(
          e.id,
          [{ user: `q${i}`, reply: `a${i}`, policyVersion: version, next: "ok" }],
          {
            simulated: true,
          },
        );
        await seedJudgment(turns[0]!.id, { score, votes: [score] });
      }
    const page = await newPage();
    await page.goto(`${BASE_URL}/experiments/${e.id}`);
    const verdict = page.getByTestId("learning-verdict");
    await verdict.waitFor();
    expect(await verdict.textContent()).toBe("learning");
    expect(await page.getByTestId("learning-reason").textContent()).toContain(
      "first replies -1.00 at the base → +1.00 since version 1 (+2.00)",
    );
    expect(await page.getByTestId("learning-stable").textContent()).toContain("12");
    await page.close();
  });

  it("promotes and rolls back policy versions from the experiment page", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "ocrl-versions-"));
    const checkpoint = (v: number) => {
      const dir = path.join(root, `v${v}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, "meta.json"), "{}");
      return dir;
    };
    await db().policyVersion.createMany({
      data: [
        {
          experimentId: exp.id,
          version: 1,
          parentVersion: 0,
          status: "RETIRED",
          checkpointPath: checkpoint(1),
          step: 1,
        },
        {
          experimentId: exp.id,
          version: 2,
          parentVersion: 1,
          status: "ACTIVE",
          checkpointPath: checkpoint(2),
          step: 2,
          promotedAt: new Date(),
        },
      ],
    });
    const active = async () =>
      (await db().policyVersion.findFirst({ where: { experimentId: exp.id, status: "ACTIVE" } }))?.version ?? 0;
    const page = await newPage();
    page.on("dialog", (d) => void d.accept());
    await page.goto(`${BASE_URL}/experiments/${exp.id}`);
    const card = page.getByTestId("policy-versions");
    await card.getByTestId("serving").getByText("serving version 2").waitFor();
    await card.getByRole("button", { name: "Roll back to v1" }).click();
    await card.getByText("Now serving version 1; was 2.").waitFor();
    expect(await active()).toBe(1);
    await expect.poll(() => card.getByTestId("version-2").textContent()).toContain("rolled back");
    await card.getByRole("button", { name: "Promote v2" }).click();
    await card.getByText("Now serving version 2; was 1.").waitFor();
    expect(await active()).toBe(2);
    await card.getByRole("button", { name: "Serve base (v0)" }).click();
    await card.getByText("Now serving version 0 (base); was 2.").waitFor();
    expect(await active()).toBe(0);
    // The way to the experiment's data and the agent snippet.
    expect(
      await page
        .getByRole("navigation", { name: "This experiment's data" })
        .getByRole("link", { name: "Metrics" })
        .getAttribute("href"),
    ).toBe(`/metrics?experimentId=${exp.id}`);
    expect(await page.getByTestId("connect-openclaw").textContent()).toContain(`"primary": "openclaw-rl/${exp.slug}"`);
    await page.close();
  });

  it("overlays one metric of runs from different experiments on one chart, with their hyperparameters in a table", async () => {
    const a = await seedExperiment({ method: "grpo", hyper: { lr: 0.00002 } });
    const b = await seedExperiment({ method: "opd", hyper: { lr: 0.00005 } });
    const ra = await seedRun(a.id);
    const rb = await seedRun(b.id);
    const points = (experimentId: string, runId: string, f: (i: number) => number) =>
      Array.from({ length: 20 }, (_, i) => ({
        experimentId,
        runId,
        name: "rollout/reward_mean",
        step: i + 1,
        value: f(i),
        ts: new Date(Date.now() - (20 - i) * 1000),
      }));
    await db().metricPoint.createMany({
      data: [...points(a.id, ra.id, (i) => -0.5 + i / 20), ...points(b.id, rb.id, (i) => -0.6 - i / 100)],
    });
    await db().run.update({
      where: { id: ra.id },
      data: { config: ExperimentConfigSchema.parse({ method: "grpo", hyper: { lr: 0.00002 } }) as object },
    });
    await db().run.update({
      where: { id: rb.id },
      data: { config: ExperimentConfigSchema.parse({ method: "opd", hyper: { lr: 0.00005 } }) as object },
    });
    const page = await newPage();
    await page.goto(`${BASE_URL}/metrics?view=compare`);
    // Ticking a run rewrites the URL, which then checks the box: click and wait, rather than check().
    for (const r of [ra, rb]) {
      const box = page.getByTestId(`run-row-${r.id}`).getByRole("checkbox");
      await box.click();
      await expect.poll(() => box.isChecked()).toBe(true);
    }
    const chart = page.getByTestId("compare-chart");
    await expect.poll(() => chart.getAttribute("data-points")).toBe("40");
    expect(await chart.getAttribute("data-lines")).toBe("2");
    expect(await chart.locator(".recharts-line path").count()).toBeGreaterThanOrEqual(2);
    expect(await page.getByTestId("compare-legend").textContent()).toContain(`${a.name} · run #1`);
    expect(await page.getByTestId("compare-legend").textContent()).toContain(`${b.name} · run #1`);
    expect(await page.getByTestId(`run-row-${rb.id}`).textContent()).toContain("0.00005");
    // The chosen runs are in the URL.
    expect(new URL(page.url()).searchParams.get("runs")?.split(",").sort()).toEqual([ra.id, rb.id].sort());
    await page.close();
  });
});
