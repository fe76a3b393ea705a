// The dashboard in a real browser against the running app: browse and filter trajectories, open a
// conversation, relabel a turn from the review queue with the keyboard and find the relabel in the audit
// log and in what the next training batch uses, and watch a metrics chart render and receive a live point.
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { publish } from "../../server/platform/bus/pubsub";
import { effectiveLabelsForTurns } from "../../server/labels/effective";
import { ExperimentConfigSchema } from "../../server/config/experimentConfig";
import { expectedJudgeVersion } from "../../server/judge/worker/settings";
import { seedJudgment } from "../helpers/judgments";
import { seedSession, seedUserFeedback } from "../integration/dashboard/seed";
import { BASE_URL, launchBrowser, signInAsNewUser } from "./helpers";
import { makeExperiment, makeRun } from "../helpers/fixtures";

let browser: Browser;
let exp: { id: string; name: string; config: unknown };
let runId: string;
let turnIds: string[];
let sessionId: string;

beforeAll(async () => {
  browser = await launchBrowser();
  exp = await makeExperiment({ method: "grpo" });
  runId = (await makeRun(exp.id)).id;
  const at = (m: number) => new Date(Date.now() - (10 - m) * 60_000);
  const { session, turns } = await seedSession(
    exp.id,
    [
      {
        user: "What is the capital of Australia?",
        reply: "The capital of Australia is Sydney.",
        createdAt: at(0),
        runId,
      },
      {
        user: "No, that's wrong. Canberra is the capital.",
        reply: "You're right, it is **Canberra**.",
        createdAt: at(1),
        runId,
      },
      {
        user: "Thanks! Now list three `python` tips",
        reply: "1. Use list comprehensions\n2. Use f-strings\n3. Use `pathlib`",
        createdAt: at(2),
        runId,
      },
    ],
    { externalId: "browser-session-1" },
  );
  sessionId = session.id;
  turnIds = turns.map((t) => t.id);
  // Under the experiment's own judge version, so the running judge worker sees them as judged already.
  const judgeVersion = expectedJudgeVersion(ExperimentConfigSchema.parse(exp.config));
  await seedJudgment(turnIds[0]!, { score: -1, votes: [-1, -1, -1], judgeVersion });
  await seedJudgment(turnIds[1]!, { score: 1, votes: [1, 1, -1], judgeVersion }); // split: disputed, so reviewed first
  await seedJudgment(turnIds[2]!, { score: 1, votes: [1, 1, 1], judgeVersion });
  await seedUserFeedback(turnIds[2]!, 1);
  await db().metricPoint.createMany({
    data: Array.from({ length: 40 }, (_, i) => ({
      experimentId: exp.id,
      runId,
      name: "train/loss",
      step: i + 1,
      value: 2 / (i + 1),
      ts: new Date(Date.now() - (40 - i) * 1000),
    })),
  });
});
afterAll(() => browser?.close());

async function newPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 950 } });
  await signInAsNewUser(page);
  return page;
}

// The turns' rows (the grid's header row is a row too, without a data-key).
const rows = (page: Page) => page.getByTestId("turns-list").locator('[role="row"][data-key]');

describe("dashboard in the browser", () => {
  it("browses and filters trajectories, then opens the conversation", async () => {
    const page = await newPage();
    await page.goto(`${BASE_URL}/trajectories?experimentId=${exp.id}`);
    await expect.poll(() => rows(page).count()).toBe(3);
    // The list keeps showing the previous result while a new one loads: wait for the rows themselves.
    const texts = () => rows(page).allTextContents();
    await page.getByLabel("Judged score").selectOption("-1");
    await expect.poll(texts).toEqual([expect.stringContaining("Sydney")]);
    await page.getByLabel("Judged score").selectOption("");
    await expect.poll(() => rows(page).count()).toBe(3);
    await page.getByLabel("Vote agreement").selectOption("split");
    await expect.poll(texts).toEqual([expect.stringContaining("Canberra")]);
    await page.getByLabel("Vote agreement").selectOption("");
    await expect.poll(() => rows(page).count()).toBe(3);
    await page.getByLabel("Search messages").fill("pathlib");
    await expect.poll(texts).toEqual([expect.stringContaining("pathlib")]);
    expect(page.url()).toContain("q=pathlib");

    await rows(page).first().click();
    await page.waitForURL(/\/trajectories\/[^/?]+$/);
    await page.getByTestId("turn-response").getByText("pathlib").waitFor();
    expect(await page.getByTestId("training-use").textContent()).toContain("RL, reward +1 (label from user feedback)");
    await page.getByRole("link", { name: "Whole conversation" }).click();
    await page.waitForURL(new RegExp(`/sessions/${sessionId}`));
    await page.getByTestId("turn-2").waitFor();
    expect(await page.locator(".msg.user").count()).toBe(3);
    // Markdown and per-turn annotations: bold text, judge scores and the split-vote flag.
    expect(await page.locator(".msg.assistant strong", { hasText: "Canberra" }).count()).toBe(1);
    expect(await page.getByTestId("judge-score").allTextContents()).toEqual(["−1", "+1", "+1"]);
    expect(await page.getByTestId(`annot-${turnIds[1]}`).getByText("split votes").count()).toBe(1);
    mkdirSync("docs/screenshots", { recursive: true });
    await page.screenshot({ path: "docs/screenshots/conversation.png", fullPage: true });
    await page.close();
  });

  it("relabels a turn from the review queue with the keyboard; the relabel shows in the audit log and in training", async () => {
    const page = await newPage();
    await page.goto(`${BASE_URL}/review`);
    const form = page.getByRole("form", { name: "New review queue" });
    await form.getByLabel("Experiment").selectOption(exp.id);
    const queueName = `Browser queue ${exp.id}`;
    await form.getByLabel("Queue name").fill(queueName);
    await form.getByRole("button", { name: "Create queue" }).click();
    const row = page.getByTestId("queues-table").locator("tr", { hasText: queueName });
    await row.waitFor();
    await row.getByRole("link", { name: "Review" }).click();
    const item = page.getByTestId("review-item");
    await item.waitFor();
    // Disputed first: the split-vote turn.
    expect(await item.getAttribute("data-turn-id")).toBe(turnIds[1]);
    await page.getByText("The judge's votes are split.").waitFor();
    await page.getByTestId(`annot-${turnIds[1]}`).waitFor();
    await page.keyboard.press("-");
    expect(await page.getByRole("radio", { name: /−1/ }).getAttribute("aria-checked")).toBe("true");
    await page.keyboard.press("h");
    await page.keyboard.type("Agree with the correction at once.");
    await page.keyboard.press("Control+Enter");
    await page
      .getByTestId("review-status")
      .getByText(/Fixed & accepted.*reward −1/)
      .waitFor();
    // The next item is a different turn.
    await expect.poll(async () => item.getAttribute("data-turn-id")).not.toBe(turnIds[1]);

    await page.goto(`${BASE_URL}/review/audit`);
    const audit = page.getByTestId("audit-table");
    await audit.waitFor();
    const entry = audit.locator("tr", { hasText: turnIds[1]!.slice(0, 10) });
    await entry.waitFor();
    expect(await entry.locator(".diff-before").textContent()).toBe("+1 (judge) → RL r=+1");
    expect(await entry.locator(".diff-after").textContent()).toBe("−1 (reviewer) → RL r=−1");

    // What the trainer's next batch reads for this turn.
    const training = (await effectiveLabelsForTurns([turnIds[1]!])).get(turnIds[1]!);
    expect(training).toMatchObject({
      source: "REVIEWER",
      value: -1,
      kind: "RL",
      reward: -1,
      excluded: false,
      hint: "Agree with the correction at once.",
    });
    await page.goto(`${BASE_URL}/trajectories/${turnIds[1]}`);
    expect(await page.getByTestId("training-use").textContent()).toContain("RL, reward −1 (label from reviewer)");
    await page.close();
  });

  it("renders a metrics chart and appends a live point published on Redis", async () => {
    const page = await newPage();
    await page.goto(`${BASE_URL}/metrics?experimentId=${exp.id}`);
    const chart = page.getByTestId("chart-Loss");
    await chart.waitFor();
    await chart.locator(".recharts-line path").first().waitFor();
    await expect.poll(async () => chart.getAttribute("data-points")).toBe("40");
    await page.locator('[data-testid="live-state"][data-live="ready"]').waitFor();
    await publish("metrics", {
      experimentId: exp.id,
      runId,
      points: [{ name: "train/loss", value: 0.01, step: 41, ts: Date.now() }],
    });
    await expect.poll(async () => chart.getAttribute("data-points"), { timeout: 10_000 }).toBe("41");
    await page.screenshot({ path: "docs/screenshots/metrics.png" });
    await page.close();
  });

  it("chats in the playground through the recording proxy, streams the reply, and sends thumbs-up feedback on the turn", async () => {
    const page = await newPage();
    await page.goto(`${BASE_URL}/playground`);
    await page.getByLabel("Experiment").selectOption(exp.id);
    await page.getByLabel("Message").fill("Hello! Can you help me plan a trip?");
    await page.keyboard.press("Enter");
    const reply = page.getByTestId("chat").locator(".msg.assistant").last();
    const view = reply.getByRole("link", { name: "view turn" });
    await view.waitFor({ timeout: 60_000 });
    const turnId = (await view.getAttribute("href"))!.split("/").pop()!;
    await reply.getByRole("button", { name: "Good answer" }).click();
    await reply.getByText("feedback sent").waitFor();
    // The proxy recorded the turn and stored the thumbs-up as the user's label on it.
    await expect
      .poll(async () => (await db().label.findFirst({ where: { turnId, source: "USER" } }))?.value ?? null, {
        timeout: 15_000,
      })
      .toBe(1);
    const turn = await db().turn.findUniqueOrThrow({ where: { id: turnId } });
    expect(turn.experimentId).toBe(exp.id);
    // What streamed into the page is the recorded response (compared as letters and digits: markdown rendering drops markup).
    const plain = (x: string) => x.replace(/[^\p{L}\p{N}]/gu, "");
    expect(plain(turn.content ?? "").length).toBeGreaterThan(0);
    expect(plain((await reply.locator(".md").textContent()) ?? "")).toBe(plain(turn.content ?? ""));
    await page.close();
  });
});
