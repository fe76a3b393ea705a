// What a first-time user hit in the console (issue 18), in a real browser against the running app: creating a
// review queue, review hotkeys after a fixed label, a phone-width window, and the simulated-users page's base figure.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { ExperimentConfigSchema } from "../../server/experiments/config";
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
  const { session, turns } = await seedSession(exp.id, [
    { user: "Plan a weekend in Lisbon", reply: "Day one: Alfama and the castle.", runId },
    { user: "Shorter please", reply: "Alfama, castle, Belém.", runId },
    { user: "And food?", reply: "Try pastéis de nata in Belém.", runId },
    { user: "Thanks", reply: "Enjoy your trip!", runId },
  ], { externalId: `console-${exp.slug}` });
  sessionId = session.id;
  turnIds = turns.map((t) => t.id);
  for (const id of turnIds) await seedJudgment(id, { score: 1, votes: [1, 1, 1], judgeVersion });
});
afterAll(() => browser?.close());

async function newPage(viewport = { width: 1400, height: 950 }, role: "ADMIN" | "REVIEWER" | "VIEWER" = "ADMIN"): Promise<Page> {
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
    expect(await page.getByRole("alert").count()).toBe(0);
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
    await page.getByTestId("review-status").getByText(/Fixed & accepted/).waitFor();
    await expect.poll(() => item.getAttribute("data-turn-id")).not.toBe(first);
    const second = (await item.getAttribute("data-turn-id"))!;
    await page.getByTestId(`annot-${second}`).waitFor();
    expect(await page.evaluate(() => document.activeElement?.tagName ?? "")).not.toBe("TEXTAREA");
    // `a` accepts the second item instead of being typed into its hint box.
    await page.keyboard.press("a");
    await page.getByTestId("review-status").getByText(/^Accepted turn/).waitFor();
    await expect.poll(() => item.getAttribute("data-turn-id")).not.toBe(second);
    expect(await page.getByLabel("Hint").inputValue()).toBe("");
    const verdicts = await db().reviewSubmission.findMany({ where: { item: { turnId: { in: [first!, second] } } }, select: { verdict: true, hint: true, item: { select: { turnId: true } } } });
    expect(verdicts.find((v) => v.item.turnId === second)).toMatchObject({ verdict: "ACCEPT", hint: null });
    await page.close();
  });

  it("at 390 px the main pages do not scroll sideways and the navigation collapses behind a menu button", async () => {
    const page = await newPage({ width: 390, height: 844 });
    const queue = await db().reviewQueue.findFirstOrThrow({ where: { experimentId: exp.id } });
    const pages = [
      "/experiments", `/experiments/${exp.id}`, "/experiments/new", `/trajectories?experimentId=${exp.id}`, `/trajectories/${turnIds[0]}`,
      "/sessions", `/sessions/${sessionId}`, "/review", `/review/${queue.id}`, `/metrics?experimentId=${exp.id}`,
      `/playground?experimentId=${exp.id}`, "/simulation", "/workers", "/settings/users", "/settings/keys",
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

  it("the simulated-users page gives version 0's judged reward as the base, however many versions came after", async () => {
    // 0 at the base, then 105 trained versions at +1: more than the 100 the chart lists.
    const sim = await seedExperiment({ method: "grpo" });
    const jv = expectedJudgeVersion(ExperimentConfigSchema.parse(sim.config));
    const specs = Array.from({ length: 107 }, (_, i) => ({ user: `question ${i}`, reply: `answer ${i}`, policyVersion: Math.max(0, i - 1), next: "ok" }));
    const { turns } = await seedSession(sim.id, specs, { simulated: true });
    // Version 0 served two turns: −1 and 0 (mean −0.5).
    for (const [i, t] of turns.entries()) await seedJudgment(t.id, { score: i === 0 ? -1 : i === 1 ? 0 : 1, votes: [i === 0 ? -1 : i === 1 ? 0 : 1], judgeVersion: jv });
    const page = await newPage();
    await page.goto(`${BASE_URL}/simulation`);
    const card = page.getByTestId(`simulation-${sim.slug}`);
    await card.getByTestId("sim-base").waitFor();
    expect(await card.getByTestId("sim-base").textContent()).toBe("-0.50");
    expect(await card.getByTestId("sim-reward").textContent()).toMatch(/-0\.50 at the base \(version 0, 2 turns\) → \+1\.00 now/);
    expect(await card.getByTestId("base-line").textContent()).toContain("base (version 0) -0.50");
    // The chart's axis starts where the listed versions start, not at a mislabelled "version 0".
    expect(await card.getByText("version 0 (base)").count()).toBe(0);
    await page.close();
  });
});
