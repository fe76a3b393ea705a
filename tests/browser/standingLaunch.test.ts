// The Environments page's standing launch in a real browser: start one over a task set's train split with a cap
// of groups in flight; without a live run it shows that it waits (launching nothing); stop it. (The top-up
// itself: tests/integration/environments/standing.test.ts.)
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { EnvironmentCreateInput, TaskSetImportInput } from "../../server/environments/schemas";
import { createEnvironment, importTaskSet } from "../../server/environments/service";
import { ADMIN, makeExperiment } from "../helpers/fixtures";
import { BASE_URL, launchBrowser, signInAsNewUser } from "./helpers";

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.newPage();
  await signInAsNewUser(page);
});
afterAll(() => browser?.close());

describe("standing launch on the Environments page", () => {
  it("starts with a cap of groups in flight, shows them, and stops", async () => {
    const exp = await makeExperiment();
    await createEnvironment(
      ADMIN,
      EnvironmentCreateInput.parse({ experiment: exp.id, name: "keep-going", tools: ["calc", "lookup"] }),
    );
    const text = readFileSync("examples/environments/toolcall/arithmetic.jsonl", "utf8");
    await importTaskSet(
      ADMIN,
      TaskSetImportInput.parse({ experiment: exp.id, name: "arith", format: "jsonl", text, heldOutFraction: 0 }),
    );
    await page.goto(`${BASE_URL}/environments?experimentId=${exp.id}`);
    await page.getByTestId("environments").getByText("keep-going", { exact: true }).click();
    const detail = page.getByTestId("environment-detail");
    await detail.getByLabel("Episodes per task").fill("1");
    await detail.getByLabel("Step budget").fill("1");
    const standing = detail.getByTestId("standing-launches");
    await standing.getByLabel("Groups in flight").fill("2");
    await standing.getByRole("button", { name: "Start standing launch" }).click();
    const row = standing.getByTestId("standing-launch");
    await expect.poll(() => row.textContent()).toContain("0 launched · 0 of 2 in flight");
    expect(await row.textContent()).toContain("waiting for a live run");
    const [s] = await db().standingLaunch.findMany({ where: { experimentId: exp.id } });
    expect(s).toMatchObject({ maxGroupsInFlight: 2, n: 1, maxSteps: 1, active: true, groupsLaunched: 0 });

    await row.getByRole("button", { name: "Stop" }).click();
    await expect.poll(() => row.textContent()).toContain("stopped: stopped by");
    expect((await db().standingLaunch.findUniqueOrThrow({ where: { id: s!.id } })).active).toBe(false);
  });
});
