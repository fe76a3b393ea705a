// The agentic pages in a real browser against the running app and its workers: create a tool-call
// environment, import the arithmetic task set, launch a group, watch the episode worker run it through the
// app's own proxy (the embedded policy), and open an episode's step timeline.
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { makeExperiment } from "../helpers/fixtures";
import { BASE_URL, launchBrowser, signInAsNewUser } from "./helpers";

let browser: Browser;
let page: Page;
let exp: { id: string };

beforeAll(async () => {
  browser = await launchBrowser();
  exp = await makeExperiment();
  page = await browser.newPage();
  await signInAsNewUser(page);
});
afterAll(() => browser?.close());

describe("environments, task sets and episodes pages", () => {
  it("creates an environment, imports tasks, launches episodes and shows a finished episode's steps", async () => {
    await page.goto(`${BASE_URL}/environments?experimentId=${exp.id}`);
    const create = page.getByTestId("environment-create");
    await create.getByLabel("Name").fill("toolcall");
    await create.getByRole("checkbox", { name: "bash" }).uncheck();
    await create.getByRole("checkbox", { name: "calc" }).check();
    await create.getByRole("checkbox", { name: "lookup" }).check();
    await create.getByRole("button", { name: "Create" }).click();
    await page.getByTestId("environments").getByText("calc, lookup").waitFor();

    await page.goto(`${BASE_URL}/task-sets?experimentId=${exp.id}`);
    // A bad file is refused with the file and line named; nothing is imported.
    const bad = path.join(process.cwd(), "tests/fixtures/environments/bad-tasks.jsonl");
    await page.getByTestId("import-file").setInputFiles(bad);
    await expect.poll(() => page.getByTestId("import-error").textContent()).toContain("line 2");
    await page.getByLabel("Held-out fraction").fill("0");
    await page.getByTestId("import-file").setInputFiles("examples/environments/toolcall/arithmetic.jsonl");
    await page.getByTestId("imported").waitFor();
    await page.getByTestId("task-sets").getByText("arithmetic").click();
    await page.getByTestId("tasks").getByText("mul-17-23").waitFor();

    await page.goto(`${BASE_URL}/environments?experimentId=${exp.id}`);
    await page.getByTestId("environments").getByText("toolcall").click();
    const detail = page.getByTestId("environment-detail");
    await detail.getByLabel("Episodes per task").fill("2");
    await detail.getByLabel("Step budget").fill("2");
    await detail.getByRole("button", { name: "Launch", exact: true }).click();
    await detail.getByTestId("launched").getByRole("link").click();
    await page.waitForURL(/\/episodes\?/);

    // The episode worker runs them against the embedded policy: every one ends (done, or failed with a reason).
    const launched = await db().episode.count({ where: { experimentId: exp.id } });
    expect(launched).toBeGreaterThan(0);
    await expect
      .poll(() => db().episode.count({ where: { experimentId: exp.id, status: { in: ["DONE", "FAILED"] } } }), {
        timeout: 240_000,
        interval: 2000,
      })
      .toBe(launched);
    const done = await db().episode.findFirstOrThrow({
      where: { experimentId: exp.id, status: "DONE" },
      include: { steps: true },
    });
    // The launch's summary: pass@1 over the tasks whose episodes ended.
    await expect
      .poll(() => page.getByTestId("launch-pass1").textContent(), { timeout: 30_000 })
      .toMatch(/^\d\.\d\d \[\d\.\d\d, \d\.\d\d\] over [1-4] tasks$/);
    // The environment's run health counts them.
    await page.goto(`${BASE_URL}/environments?experimentId=${exp.id}&environmentId=${done.environmentId}`);
    const failed = await db().episode.count({ where: { experimentId: exp.id, status: "FAILED" } });
    await expect.poll(() => page.getByTestId("environment-health-stats").textContent()).toContain(`${failed} failed`);
    // Every episode ended, so none holds a lease; tool-call episodes run no sandbox, so there is no lease latency.
    expect(await page.getByTestId("environment-episodes").textContent()).toContain("(0 holding a lease)");
    expect(await page.getByTestId("environment-lease-latency").textContent()).toBe(
      "allocate p50 — · p95 — · evaluate p50 — · p95 —",
    );
    await page.goto(`${BASE_URL}/episodes?experimentId=${exp.id}`);
    await page.getByRole("link", { name: done.id }).click();
    await page.getByTestId("episode-outcome").waitFor();
    expect(await page.getByTestId("episode-status").textContent()).toBe("done");
    expect(await page.getByTestId("episode-step").count()).toBe(done.steps.length);
  });
});
