// Choosing where an environment's episodes run, in a real browser against the running app and its workers:
// the Environments form creates a gui remote-pool environment on a pool stand-in (built from the extracted
// gui-rl protocol fixture), refuses a pool address the egress policy refuses, and the episode worker runs a
// launched episode on that pool; the Episode page shows the desktop's screenshots.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { EnvPoolServer } from "../fakes/envPoolServer";
import { examplesTaskSet } from "../helpers/environments";
import { makeExperiment } from "../helpers/fixtures";
import { BASE_URL, launchBrowser, signInAsNewUser } from "./helpers";

let browser: Browser;
let page: Page;
let exp: { id: string };
let pool: EnvPoolServer;

beforeAll(async () => {
  browser = await launchBrowser();
  exp = await makeExperiment();
  pool = await new EnvPoolServer({ protocol: "gui" }).start();
  page = await browser.newPage();
  await signInAsNewUser(page);
});
afterAll(async () => {
  await browser?.close();
  await pool?.kill();
});

describe("environment runners from the Environments page", () => {
  it("creates a gui pool environment, runs an episode on it, and shows its screenshots", async () => {
    await examplesTaskSet(exp.id);
    await page.goto(`${BASE_URL}/environments?experimentId=${exp.id}`);
    const create = page.getByTestId("environment-create");

    // A metadata address is refused by the egress policy, with the reason, and nothing is created.
    await create.getByLabel("Name").fill("metadata");
    await create.getByLabel("Provider").selectOption("remote-pool");
    await create.getByLabel("Pool protocol").selectOption("gui");
    await create.getByLabel("Pool URLs").fill("http://169.254.169.254/");
    await create.getByRole("button", { name: "Create" }).click();
    await expect
      .poll(() => create.textContent())
      .toContain("pool.urls.0: 169.254.169.254:80 resolves to 169.254.169.254");

    await create.getByLabel("Name").fill("desktops");
    await create.getByLabel("Pool URLs").fill(pool.url);
    await create.getByRole("button", { name: "Create" }).click();
    await page.getByTestId("environments").getByText(`remote-pool (gui: ${pool.url})`).waitFor();
    expect(await db().environment.count({ where: { experimentId: exp.id, name: "metadata" } })).toBe(0);

    await page.getByTestId("environments").getByText("desktops").click();
    const detail = page.getByTestId("environment-detail");
    await detail.getByLabel("Episodes per task").fill("1");
    await detail.getByLabel("Step budget").fill("1");
    await detail.getByRole("button", { name: "Launch", exact: true }).click();
    await detail.getByTestId("launched").waitFor();

    // The worker runs them on the pool against the embedded policy (its actions are whatever it says).
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
      include: { screenshots: true, steps: true },
    });
    expect(done.leaseProvider).toBe("remote-pool");
    expect(done.screenshots.length).toBe(done.steps.length + 1);

    await page.goto(`${BASE_URL}/episodes/${done.id}`);
    const shots = page.getByTestId("episode-screenshot");
    await expect.poll(() => shots.count()).toBe(done.screenshots.length);
    // Each is a decoded PNG (the stand-in's are 1×1).
    await expect
      .poll(() =>
        shots.evaluateAll((imgs) => (imgs as HTMLImageElement[]).map((img) => (img.complete ? img.naturalWidth : -1))),
      )
      .toEqual(done.screenshots.map(() => 1));
    expect(pool.violations).toEqual([]);
  });

  it("builds a track's GPU job: the command with its split, step_wise with a PRM, and the reason a split cannot run", async () => {
    await page.goto(`${BASE_URL}/environments`);
    const card = page.getByTestId("track-job");
    await card.getByLabel("Hugging Face checkpoint").fill("/models/Qwen3-4B");
    await card.getByLabel("Megatron checkpoint").fill("/models/Qwen3-4B_torch_dist");
    await card.getByLabel("Save dir").fill("/ckpt/retool");
    await card.getByLabel("Prompt data").fill("/data/dapo.jsonl");
    await card.getByLabel("PRM model").fill("/models/Qwen3-4B");
    await card.getByRole("button", { name: "Build the command" }).click();
    const result = card.getByTestId("track-job-result");
    await expect.poll(() => result.textContent()).toContain("actor 2 · rollout 4 · PRM 2 of 8");
    expect(await result.textContent()).toContain("--advantage-estimator step_wise");
    // The planner's grid: slime's placement, the PRM's two GPUs last on the node, after actor and rollout.
    const cells = await result
      .getByTestId("gpu-grid")
      .locator(".gpu")
      .evaluateAll((els) => els.map((e) => e.className));
    expect(cells).toEqual([
      "gpu actor",
      "gpu actor",
      "gpu rollout",
      "gpu rollout",
      "gpu rollout",
      "gpu rollout",
      "gpu prm",
      "gpu prm",
    ]);

    // A terminal-rl job reaches its environments through a pool: without its URL it is refused, with the reason.
    await card.getByLabel("PRM model").fill("");
    await card.getByLabel("Track").selectOption("terminal");
    await card.getByRole("button", { name: "Build the command" }).click();
    await expect.poll(() => card.textContent()).toContain("needs the env pool's URL");
  });
});
