import { chromium, type Browser, type Page } from "playwright-core";
import { makeUser } from "../helpers/fixtures";

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
