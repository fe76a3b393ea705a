// Recorded replies rendered as Markdown on the trajectory page (react-markdown + remark-gfm): a GFM table
// and a nested list become real <table> and nested <ul>, while raw HTML and javascript: links in the same
// reply stay inert. And a long trajectory list (virtualised with @tanstack/react-virtual) keeps only a
// window of rows in the DOM and is navigable with the keyboard.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedSession } from "../integration/dashboard/seed";
import { BASE_URL, launchBrowser, signInAsNewUser } from "./helpers";
import { makeExperiment } from "../helpers/fixtures";

const REPLY = [
  "Here is the comparison:",
  "",
  "| Model | Score |",
  "|---|---:|",
  "| qwen3-4b | **0.71** |",
  "| qwen3.5-4b | 0.78 |",
  "",
  "- Setup",
  "  - install the package",
  "  - set `OCRL_KEY`",
  "- Run",
  "",
  'Raw markup stays text: <script>window.__pwned = 1</script> <img src=x onerror="window.__pwned = 2">',
  "and [a bad link](javascript:window.__pwned=3) next to [a good one](https://example.com/docs).",
].join("\n");

let browser: Browser;
let expId: string;
let tableTurnId: string;
const LONG = 60;

beforeAll(async () => {
  browser = await launchBrowser();
  const exp = await makeExperiment({ method: "grpo" });
  expId = exp.id;
  const at = (m: number) => new Date(Date.now() - (LONG + 5 - m) * 60_000);
  const { turns } = await seedSession(
    exp.id,
    [{ user: "Compare the two models, with setup steps.", reply: REPLY, createdAt: at(0) }],
    {
      externalId: "browser-markdown-1",
    },
  );
  tableTurnId = turns[0]!.id;
  await seedSession(
    exp.id,
    Array.from({ length: LONG }, (_, i) => ({ user: `question ${i}`, reply: `answer ${i}`, createdAt: at(i + 1) })),
    { externalId: "browser-markdown-long" },
  );
});
afterAll(() => browser?.close());

async function newPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 950 } });
  await signInAsNewUser(page);
  return page;
}

describe("markdown and virtual list in the browser", () => {
  it("renders a recorded GFM table and nested list as <table> and nested <ul>, and keeps raw HTML and javascript: links inert", async () => {
    const page = await newPage();
    await page.goto(`${BASE_URL}/trajectories/${tableTurnId}`);
    const response = page.getByTestId("turn-response");
    await response.locator("table").waitFor();
    expect(await response.locator("table th").allTextContents()).toEqual(["Model", "Score"]);
    expect(await response.locator("table tbody tr").count()).toBe(2);
    expect(await response.locator("table strong", { hasText: "0.71" }).count()).toBe(1);
    const nested = response.locator("ul > li > ul > li");
    expect(await nested.allTextContents()).toEqual(["install the package", "set OCRL_KEY"]);
    expect(await response.locator("ul > li > ul code", { hasText: "OCRL_KEY" }).count()).toBe(1);

    // Raw HTML is shown as text, never as elements; the javascript: link keeps its text but no href.
    expect(await response.locator("script, img, iframe").count()).toBe(0);
    expect(await response.textContent()).toContain("<script>window.__pwned = 1</script>");
    expect(await response.locator('a[href^="javascript" i]').count()).toBe(0);
    expect(await response.getByText("a bad link").count()).toBe(1);
    expect(await response.locator('a[href="https://example.com/docs"]').getAttribute("rel")).toBe(
      "noreferrer noopener",
    );
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? null)).toBeNull();
    await page.close();
  });

  it("keeps a window of rows in the DOM for a long list and navigates it with the keyboard", async () => {
    const page = await newPage();
    await page.goto(`${BASE_URL}/trajectories?experimentId=${expId}`);
    const list = page.getByTestId("turns-list");
    const rows = list.locator('[role="row"][data-key]');
    await rows.first().waitFor();
    const windowed = await rows.count();
    expect(windowed).toBeGreaterThan(5);
    expect(windowed).toBeLessThan(LONG + 1);

    await list.focus();
    await page.keyboard.press("ArrowDown");
    const active = list.locator('[role="row"][data-active="true"]');
    const firstKey = await rows.first().getAttribute("data-key");
    expect(await active.getAttribute("data-key")).toBe(firstKey);
    await page.keyboard.press("ArrowDown");
    expect(await active.getAttribute("data-key")).toBe(await rows.nth(1).getAttribute("data-key"));

    // End scrolls the virtualiser to the last loaded row, which was not in the DOM before.
    await page.keyboard.press("End");
    await expect.poll(() => list.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
    const lastKey = await active.getAttribute("data-key");
    expect(lastKey).not.toBe(firstKey);
    expect(await active.isVisible()).toBe(true);
    await page.keyboard.press("Home");
    await expect.poll(() => active.getAttribute("data-key")).toBe(firstKey);

    await page.keyboard.press("End");
    await expect.poll(() => active.getAttribute("data-key")).toBe(lastKey);
    await page.keyboard.press("Enter");
    await page.waitForURL(new RegExp(`/trajectories/${lastKey}$`));
    await page.close();
  });
});
