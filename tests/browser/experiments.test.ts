import { mkdirSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniq } from "../helpers/fixtures";
import { BASE_URL, createAndReadConfig, launchBrowser, openNewExperiment, signInAsNewUser } from "./helpers";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe("experiments in the browser", () => {
  it("redirects anonymous visitors to the login page", async () => {
    const page = await browser.newPage();
    await page.goto(`${BASE_URL}/experiments`);
    await page.waitForURL(/\/login/);
    // isVisible() does not wait: the URL can change before the form has rendered.
    await page.getByRole("button", { name: "Sign in" }).waitFor({ state: "visible" });
    await page.close();
  });

  it("creates an experiment through the form, sees a validation error, fixes it and finds it in the list", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInAsNewUser(page);
    await page.getByRole("link", { name: "New experiment" }).click();
    await page.waitForURL(/\/experiments\/new/);

    const name = uniq("Browser experiment");
    await page.locator('input[name="name"]').fill(name);
    await page.locator('select[name="method"]').selectOption("grpo");
    await page.locator('input[name="hyper.lr"]').fill("-1");
    await page.getByRole("button", { name: "Create experiment" }).click();
    const lrError = page.locator('[data-path="config.hyper.lr"] .field-error');
    await lrError.waitFor();
    expect(await lrError.textContent()).toBe("learning rate must be ≥ 0 (0 = a control run that never moves)");
    expect(page.url()).toMatch(/\/experiments\/new/);

    await page.locator('input[name="hyper.lr"]').fill("0.00002");
    await page.getByRole("button", { name: "Create experiment" }).click();
    await page.waitForURL(/\/experiments\/(?!new)[^/]+$/);
    await page.getByRole("heading", { name }).waitFor();
    expect(await page.getByText("lr 0.00002").count()).toBe(1);

    await page.getByRole("link", { name: "Experiments" }).click();
    await page.getByLabel("Search experiments").fill(name);
    const row = page.getByTestId("experiments-table").getByRole("link", { name });
    await row.waitFor();
    expect(await row.count()).toBe(1);
    mkdirSync("docs/screenshots", { recursive: true });
    await page.getByLabel("Search experiments").fill("");
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="experiments-table"] tbody tr').length >= 1,
    );
    await page.screenshot({ path: "docs/screenshots/experiments.png" });
    await page.close();
  });

  it("shows each trainer's defaults beside the reference: the embedded clamp and style prompts, slime's top-K difference clip", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInAsNewUser(page);
    await page.goto(`${BASE_URL}/experiments/new`);
    const hint = (path: string) => page.locator(`[data-path="config.${path}"] .muted`);
    await hint("hyper.advClamp").waitFor();
    expect(await hint("hyper.advClamp").textContent()).toContain(
      "embedded trainer default 2 (measured); OpenClaw-RL default 0",
    );
    expect(await page.locator('input[name="hyper.topkDiffClip"]').count()).toBe(0);

    // Style prompts are OPD's and Combine's embedded default: an untouched field follows the method.
    const style = page.locator('input[name="hyper.stylePrompts"]');
    expect(await style.inputValue()).toBe("16");
    expect(await hint("hyper.stylePrompts").textContent()).toContain(
      "embedded trainer default 16 (measured); OpenClaw-RL default 0",
    );
    await page.locator('select[name="method"]').selectOption("grpo");
    expect(await style.inputValue()).toBe("0");
    await page.locator('select[name="method"]').selectOption("opd");
    expect(await style.inputValue()).toBe("16");

    // On slime the clamp moves to the reference's 0, and the topk estimator brings upstream's difference clip.
    await page.locator('select[name="trainer.backend"]').selectOption("local-process");
    expect(await page.locator('input[name="hyper.advClamp"]').inputValue()).toBe("0");
    await page.locator('select[name="hyper.opdEstimator"]').selectOption("topk");
    const clip = page.locator('input[name="hyper.topkDiffClip"]');
    await clip.waitFor();
    expect(await clip.inputValue()).toBe("1");
    expect(await hint("hyper.topkDiffClip").textContent()).toContain("OpenClaw-RL default 1");
    await page.close();
  });

  it("turns on held-out evaluation and gated promotion with a gate set of its own and confirmation from the form", async () => {
    const { page, name } = await openNewExperiment(browser, "Gated experiment");
    // The gate's fields appear with gated promotion; without evaluation nothing could ever be promoted: refused.
    expect(await page.locator('input[name="serving.gate.set"]').count()).toBe(0);
    await page.locator('select[name="serving.promotion"]').selectOption("gated");
    await page.getByRole("button", { name: "Create experiment" }).click();
    const promotionError = page.locator('[data-path="config.serving.promotion"] .field-error');
    await promotionError.waitFor();
    expect(await promotionError.textContent()).toBe(
      "gated promotion needs evaluation.enabled: nothing would ever be promoted",
    );
    await page.locator('select[name="evaluation.enabled"]').selectOption("true");
    await page.locator('input[name="serving.gate.set"]').fill("asked questions");
    await page.locator('select[name="serving.gate.confirm"]').selectOption("true");
    const saved = await createAndReadConfig(page, name);
    expect([saved.evaluation.enabled, saved.serving.promotion, saved.serving.gate]).toEqual([
      true,
      "gated",
      { tolerance: 0.05, set: "asked questions", confirm: true },
    ]);
    await page.close();
  });

  it("starts and stops a run from the detail page", async () => {
    const { page, name } = await openNewExperiment(browser, "Run lifecycle");
    await page.getByRole("button", { name: "Create experiment" }).click();
    await page.getByRole("heading", { name }).waitFor();
    await page.getByRole("button", { name: "Start run" }).click();
    await page.getByRole("button", { name: "Stop run #1" }).waitFor();
    page.once("dialog", (d) => void d.accept()); // Stop asks for confirmation
    await page.getByRole("button", { name: "Stop run #1" }).click();
    await page.getByText("stopped by user").waitFor();
    await page.getByRole("button", { name: "Start run" }).waitFor({ state: "visible" });
    await page.close();
  });
});
