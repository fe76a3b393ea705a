import { chromium, type Browser, type Page } from "playwright-core";
import { ExperimentConfigSchema, type ExperimentConfig } from "../../server/config/experimentConfig";
import { db } from "../../server/platform/db/client";
import { makeUser, uniq } from "../helpers/fixtures";

// Not BASE_URL: Vite reserves that name (it would read "/").
export const BASE_URL = process.env.APP_URL!;

/** System Chromium; never a downloaded browser. The flags keep it off this machine's closed network. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

export async function signInAsNewUser(page: Page, role: "ADMIN" | "REVIEWER" | "VIEWER" = "ADMIN") {
  const user = await makeUser(role);
  await page.goto(`${BASE_URL}/login`);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/experiments$/);
  return user;
}

/** A new admin's page on the new-experiment form, its name filled with a unique one made from `label`. */
export async function openNewExperiment(browser: Browser, label: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signInAsNewUser(page);
  await page.goto(`${BASE_URL}/experiments/new`);
  const name = uniq(label);
  await page.locator('input[name="name"]').fill(name);
  return { page, name };
}

/** Submits the new-experiment form, waits for the created experiment's page and reads back what was stored. */
export async function createAndReadConfig(page: Page, name: string): Promise<ExperimentConfig> {
  await page.getByRole("button", { name: "Create experiment" }).click();
  await page.waitForURL(/\/experiments\/(?!new)[^/]+$/);
  const e = await db().experiment.findFirstOrThrow({ where: { name }, select: { config: true } });
  return ExperimentConfigSchema.parse(e.config);
}
