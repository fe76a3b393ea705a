// The rest of issue 18, in a real browser against the running app: form validation in one round and in our
// wording, the workers page's last error of retried jobs, judge-detail labels, the review queue's counts and
// explained actions, search hits highlighted, and the polish items that a browser can check.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { seedJudgment } from "../helpers/judgments";
import { seedExperiment, seedSession } from "../integration/dashboard/seed";
import { makeKey } from "../helpers/fixtures";
import { BASE_URL, launchBrowser, signInAsNewUser } from "./helpers";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

async function newPage(viewport = { width: 1400, height: 950 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await signInAsNewUser(page);
  return page;
}

const fieldError = (page: Page, path: string) => page.locator(`[data-path="${path}"] .field-error`);

describe("console details in the browser", () => {
  it("reports every form problem on the first submit, in our wording", async () => {
    const page = await newPage();
    await page.goto(`${BASE_URL}/experiments/new`);
    await page.locator('input[name="slug"]').fill("Bad Slug");
    await page.locator('input[name="judge.votes"]').fill("0");
    await page.locator('input[name="hyper.batchSize"]').fill("0");
    await page.getByRole("button", { name: "Create experiment" }).click();
    await fieldError(page, "slug").waitFor();
    expect(await fieldError(page, "name").textContent()).toBe("name is required");
    expect(await fieldError(page, "slug").textContent()).toMatch(/^slug may contain lowercase letters/);
    expect(await fieldError(page, "config.judge.votes").textContent()).toBe("at least one vote");
    expect(await fieldError(page, "config.hyper.batchSize").textContent()).toBe("must be at least 1");
    expect(await page.locator("main").textContent()).not.toMatch(/Too small|Invalid input/);
    await page.close();
  });

  it("says a field emptied on Edit is required instead of saving its default", async () => {
    const exp = await seedExperiment({ method: "grpo", hyper: { batchSize: 7 } });
    const page = await newPage();
    await page.goto(`${BASE_URL}/experiments/${exp.id}/edit`);
    const batch = page.locator('input[name="hyper.batchSize"]');
    await expect.poll(() => batch.inputValue()).toBe("7");
    await batch.fill("");
    await page.getByRole("button", { name: "Save changes" }).click();
    await fieldError(page, "config.hyper.batchSize").waitFor();
    expect(await fieldError(page, "config.hyper.batchSize").textContent()).toBe("required");
    expect(page.url()).toMatch(/\/edit$/);
    const saved = await db().experiment.findUniqueOrThrow({ where: { id: exp.id } });
    expect((saved.config as { hyper: { batchSize: number } }).hyper.batchSize).toBe(7);
    await page.close();
  });

  it("labels eval votes and hint votes apart, a hint vote's 1 as 'hint found' rather than a green +1, and says what the heat map's colours mean", async () => {
    const exp = await seedExperiment({ method: "combine" });
    const { turns } = await seedSession(exp.id, [
      {
        user: "Book me a table",
        reply: "Done.",
        next: "You booked the wrong day!",
        tokenIds: [5, 6],
        logprobs: [-1, -1],
      },
    ]);
    const turn = turns[0]!;
    const j = await seedJudgment(turn.id, {
      score: -1,
      votes: [-1, -1, -1],
      hint: "Confirm the day first.",
      teacherLogprobs: [-0.5, -2],
    });
    await db().judgeVote.createMany({
      data: [0, 1, 2].map((index) => ({
        judgmentId: j.id,
        kind: "hint",
        index,
        raw: "\\boxed{1} [HINT_START]Confirm the day first.[HINT_END]",
        value: 1,
        hint: "Confirm the day first.",
      })),
    });
    const page = await newPage();
    await page.goto(`${BASE_URL}/trajectories/${turn.id}`);
    const annot = page.getByTestId(`annot-${turn.id}`);
    await annot.waitFor();
    expect(await annot.getByTestId("vote-agreement").textContent()).toBe("3/3 eval votes agree");
    expect(await annot.getByTestId("votes-summary").textContent()).toBe("3 eval votes · 3 hint votes (reasoning)");
    await annot.getByTestId("votes-summary").click();
    const hintVotes = annot.locator('.vote[data-kind="hint"]');
    expect(await hintVotes.count()).toBe(3);
    expect(await hintVotes.getByTestId("hint-vote").allTextContents()).toEqual([
      "hint found",
      "hint found",
      "hint found",
    ]);
    expect(await hintVotes.locator(".score").count()).toBe(0);
    expect(await annot.locator('.vote[data-kind="eval"] .score.neg').count()).toBe(3);
    expect(await annot.getByTestId("heat-legend-meaning").textContent()).toMatch(
      /red: the hinted teacher finds the token less likely.*green: more likely/,
    );
    await page.close();
  });

  it("the queue list counts the turns a new queue will serve, and each verdict says what it does", async () => {
    const exp = await seedExperiment({ method: "grpo" });
    const { turns } = await seedSession(exp.id, [
      { user: "a", reply: "b" },
      { user: "c", reply: "d" },
      { user: "e", reply: "f" },
    ]);
    for (const [i, t] of turns.entries())
      await seedJudgment(t.id, { score: 1, votes: i === 0 ? [1, 1, -1] : [1, 1, 1] });
    const page = await newPage();
    await page.goto(`${BASE_URL}/review`);
    const form = page.getByRole("form", { name: "New review queue" });
    await form.getByLabel("Experiment").selectOption(exp.id);
    const name = `Counts ${exp.slug}`;
    await form.getByLabel("Queue name").fill(name);
    await form.getByRole("button", { name: "Create queue" }).click();
    const row = page.getByTestId("queues-table").locator("tr", { hasText: name });
    await row.waitFor();
    // Columns: Queue, Experiment, Pending, Disputed, …; no fetch has moved the turns into the queue yet.
    expect(await row.locator("td").nth(2).textContent()).toBe("3");
    expect(await row.locator("td").nth(3).textContent()).toBe("1");
    await row.getByRole("link", { name: "Review" }).click();
    const verdicts = page.getByTestId("verdicts");
    await verdicts.waitFor();
    expect(await verdicts.getByRole("button", { name: /^Accept/ }).getAttribute("title")).toMatch(
      /label training uses now/,
    );
    expect(await page.locator("#verdict-FIX").isVisible()).toBe(true);
    expect(await page.locator("#verdict-REJECT").textContent()).toMatch(/exclude it from training/);
    // The shortcut badge on the blue button takes the button's dark text, not the muted grey lost in the blue.
    const badge = verdicts.getByRole("button", { name: /^Fix & Accept/ }).locator("kbd");
    expect(await badge.evaluate((el) => getComputedStyle(el).color)).toBe("rgb(7, 17, 31)");
    await page.close();
  });

  it("search results show where they matched with the hit marked, and the count reads '1 turn'", async () => {
    const exp = await seedExperiment({ method: "grpo" });
    await seedSession(exp.id, [
      {
        user: "Which train to Porto?",
        reply: "The 9:00 Alfa Pendular.",
        next: "That one is sold out, find a zebrafish alternative",
      },
    ]);
    const page = await newPage();
    await page.goto(`${BASE_URL}/trajectories?experimentId=${exp.id}&q=zebrafish`);
    const hit = page.getByTestId("turns-list").getByTestId("search-hit");
    await hit.waitFor();
    expect(await hit.getAttribute("data-field")).toBe("next state");
    expect(await hit.locator("mark").allTextContents()).toEqual(["zebrafish"]);
    expect(await hit.textContent()).toContain("in next state");
    await expect.poll(() => page.getByTestId("turn-count").textContent()).toBe("1 turn");
    await page.close();
  });

  it("the relabel audit log shows the full turn id, its experiment and the reviewer's hint, and no pager for one page", async () => {
    const exp = await seedExperiment({ method: "grpo" });
    const { turns } = await seedSession(exp.id, [{ user: "Summarise this", reply: "No." }]);
    const turn = turns[0]!;
    const key = await makeKey(["write"]);
    const res = await fetch(`${BASE_URL}/api/v1/labels`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ turnId: turn.id, value: -1, hint: "Give the summary that was asked for." }),
    });
    expect(res.status).toBe(201);
    const page = await newPage();
    await page.goto(`${BASE_URL}/review/audit`);
    await page.getByLabel("Experiment").selectOption(exp.id);
    const row = page.getByTestId("audit-table").locator("tr", { hasText: turn.id });
    await row.waitFor();
    expect(await row.getByRole("link", { name: turn.id }).getAttribute("href")).toBe(`/trajectories/${turn.id}`);
    expect(await row.textContent()).toContain(exp.name);
    expect(await row.getByTestId("audit-hint").textContent()).toBe("Give the summary that was asked for.");
    expect(await page.getByTestId("audit-pager").count()).toBe(0);
    await page.close();
  });

  it("ticks rows in the trajectory list and adds them to one of the experiment's review queues", async () => {
    const exp = await seedExperiment({ method: "grpo" });
    const { turns } = await seedSession(exp.id, [
      { user: "one", reply: "1" },
      { user: "two", reply: "2" },
      { user: "three", reply: "3" },
    ]);
    const queue = await db().reviewQueue.create({
      data: { experimentId: exp.id, name: `Picked ${exp.slug}`, filter: { turnType: "MAIN" } },
    });
    const page = await newPage();
    await page.goto(`${BASE_URL}/trajectories?experimentId=${exp.id}`);
    const list = page.getByTestId("turns-list");
    for (const t of [turns[0]!, turns[2]!]) await list.locator(`[role="row"][data-key="${t.id}"] .pick input`).check();
    // Ticking stays on the list page.
    expect(page.url()).toContain("/trajectories?");
    const bar = page.getByTestId("add-to-queue");
    expect(await bar.textContent()).toContain("2 turns selected");
    await bar.getByLabel("Review queue").selectOption(queue.id);
    await bar.getByRole("button", { name: "Add to queue" }).click();
    await bar.getByText(`Added 2 turns to ${queue.name}.`).waitFor();
    const items = await db().reviewItem.findMany({ where: { queueId: queue.id }, select: { turnId: true } });
    expect(items.map((i) => i.turnId).sort()).toEqual([turns[0]!.id, turns[2]!.id].sort());
    await page.close();
  });

  it("saves the trajectory filters as a named view and applies it again", async () => {
    const exp = await seedExperiment({ method: "grpo" });
    const page = await newPage();
    await page.goto(`${BASE_URL}/trajectories?experimentId=${exp.id}&score=-1&turnType=MAIN`);
    const views = page.getByTestId("saved-views");
    await views.waitFor();
    page.once("dialog", (d) => void d.accept("Bad main turns"));
    await views.getByRole("button", { name: "Save view" }).click();
    await expect.poll(() => views.getByLabel("Saved views").inputValue()).toBe("Bad main turns");
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.waitForURL(/\/trajectories$/);
    await views.getByLabel("Saved views").selectOption("Bad main turns");
    await page.waitForURL(/score=-1/);
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({ experimentId: exp.id, score: "-1", turnType: "MAIN" });
    expect(await page.getByLabel("Judged score").inputValue()).toBe("-1");
    await page.close();
  });
});
