// The console through the accessibility tree, as a screen reader or keyboard user meets it: roles and names, not
// CSS classes. The nav says which page is current; the trajectory list is a grid whose rows own only cells and
// whose active row is named by aria-activedescendant; a control a viewer may not use stays reachable and says
// why; the shortcuts dialog is modal, takes focus, keeps it, and gives it back; the label radios rove.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { seedExperiment, seedSession } from "../integration/dashboard/seed";
import { BASE_URL, launchBrowser, signInAsNewUser } from "./helpers";

let browser: Browser;
let exp: { id: string; slug: string; name: string };
let turnIds: string[];
const externalId = `a11y-${Date.now().toString(36)}`;

beforeAll(async () => {
  browser = await launchBrowser();
  exp = await seedExperiment({ method: "grpo" });
  const { turns } = await seedSession(
    exp.id,
    [
      { user: "first question", reply: "first answer" },
      { user: "second question", reply: "second answer" },
      { user: "third question", reply: "third answer" },
    ],
    { externalId },
  );
  turnIds = turns.map((t) => t.id);
});
afterAll(() => browser?.close());

async function newPage(role: "ADMIN" | "REVIEWER" | "VIEWER" = "ADMIN"): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 950 } });
  await signInAsNewUser(page, role);
  return page;
}

/** The focused element's role and accessible text, read in the page. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return {
      tag: el?.tagName ?? "",
      role: el?.getAttribute("role") ?? null,
      text: (el?.textContent ?? "").trim(),
      inDialog: !!el?.closest('[role="dialog"]'),
    };
  });

describe("accessibility tree of the console", () => {
  it("marks the current section's nav link with aria-current=page, and only that one", async () => {
    const page = await newPage();
    const nav = page.getByRole("navigation", { name: "Main" });
    await page.goto(`${BASE_URL}/trajectories?experimentId=${exp.id}`);
    const current = nav.locator('[aria-current="page"]');
    await expect.poll(() => current.count()).toBe(1);
    expect(await current.textContent()).toBe("Trajectories");
    expect(await nav.getByRole("link", { name: "Sessions" }).getAttribute("aria-current")).toBeNull();
    // A page inside the section (one turn) keeps its section current; a sibling path does not match by prefix.
    await page.goto(`${BASE_URL}/trajectories/${turnIds[0]}`);
    await expect.poll(() => nav.getByRole("link", { name: "Trajectories" }).getAttribute("aria-current")).toBe("page");
    await page.goto(`${BASE_URL}/review/audit`);
    await expect.poll(() => current.textContent()).toBe("Review");
    await page.close();
  });

  it("exposes the trajectory list as a grid: headers, rows owning only cells, the active row as aria-activedescendant", async () => {
    const page = await newPage();
    await page.goto(`${BASE_URL}/trajectories?experimentId=${exp.id}`);
    const grid = page.getByRole("grid", { name: "Turns" });
    const rows = grid.getByRole("row", { name: new RegExp(externalId) });
    await expect.poll(() => rows.count()).toBe(3);
    for (const name of ["Time", "Session", "Score", "Response"])
      expect(await grid.getByRole("columnheader", { name, exact: true }).count()).toBe(1);
    expect(await grid.getAttribute("aria-rowcount")).toBe("4");
    // Every row sits in a rowgroup and owns only (column header / grid) cells: no link or label as a direct child.
    const structure = await grid.evaluate((el) =>
      [...el.querySelectorAll('[role="row"]')].map((row) => ({
        parent: row.parentElement?.getAttribute("role"),
        children: [...row.children].map((c) => c.getAttribute("role")),
      })),
    );
    expect(structure.length).toBe(4);
    for (const r of structure) {
      expect(r.parent).toBe("rowgroup");
      expect(r.children.every((c) => c === "gridcell" || c === "columnheader")).toBe(true);
    }
    // The row's link is inside its cell, named by the row's text.
    expect(await rows.first().getByRole("gridcell").getByRole("link").count()).toBe(1);

    await grid.focus();
    expect(await grid.getAttribute("aria-activedescendant")).toBeNull();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    const active = await grid.getAttribute("aria-activedescendant");
    expect(active).toBeTruthy();
    const target = page.locator(`[id="${active}"]`);
    expect(await target.getAttribute("role")).toBe("row");
    expect(await target.getAttribute("data-key")).toBe(await rows.nth(1).getAttribute("data-key"));
    expect(await target.getAttribute("aria-rowindex")).toBe("3");
    await page.close();
  });

  it("keeps a viewer's denied Clone button focusable and described by the reason, and inert", async () => {
    const page = await newPage("VIEWER");
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${BASE_URL}/experiments/${exp.id}`);
    const clone = page.getByRole("button", { name: "Clone" });
    await expect.poll(() => clone.getAttribute("aria-disabled")).toBe("true");
    expect(await clone.isDisabled()).toBe(true);
    const describedBy = (await clone.getAttribute("aria-describedby"))!;
    const reason = page.locator(`[id="${describedBy}"]`);
    // Worded from the server's role table (server/access/principal.ts), not restated in the page.
    await expect.poll(() => reason.textContent()).toBe("Needs the admin role: you are signed in as a viewer.");
    expect(await reason.isVisible()).toBe(false);
    await clone.focus();
    expect(await focused(page)).toMatchObject({ tag: "BUTTON", text: "Clone" });
    await expect.poll(() => reason.isVisible()).toBe(true);
    expect(await page.getByRole("tooltip").textContent()).toBe("Needs the admin role: you are signed in as a viewer.");
    // Enter on the focused control and a click do nothing (Clone would ask for a slug first).
    await page.keyboard.press("Enter");
    await clone.dispatchEvent("click");
    expect(dialogs).toEqual([]);
    expect(await db().experiment.count({ where: { slug: { startsWith: `${exp.slug}-copy` } } })).toBe(0);
    await page.close();
  });

  it("opens the shortcuts dialog as a modal that takes focus, traps Tab, shields the form, and gives focus back", async () => {
    const page = await newPage("REVIEWER");
    await page.goto(`${BASE_URL}/trajectories/${turnIds[2]}`);
    const form = page.getByTestId("relabel-form");
    const save = form.getByRole("button", { name: /Save label/ });
    await save.focus();
    await page.keyboard.press("?");
    const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await dialog.waitFor();
    expect(await dialog.getAttribute("aria-modal")).toBe("true");
    expect(await focused(page)).toMatchObject({ text: "Close", inDialog: true });
    await page.keyboard.press("Tab");
    expect((await focused(page)).inDialog).toBe(true);
    await page.keyboard.press("Shift+Tab");
    expect((await focused(page)).inDialog).toBe(true);
    // A label key behind the modal does not label the turn.
    const plusOne = form.getByRole("radio", { name: /\+1/ });
    const before = await plusOne.getAttribute("aria-checked");
    await page.keyboard.press("1");
    expect(await plusOne.getAttribute("aria-checked")).toBe(before);
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await focused(page)).toMatchObject({ tag: "BUTTON", text: expect.stringMatching(/^Save label/) });
    await page.close();
  });

  it("moves the label choice with the arrow keys, one tab stop for the group", async () => {
    const page = await newPage("REVIEWER");
    await page.goto(`${BASE_URL}/trajectories/${turnIds[1]}`);
    const group = page.getByTestId("relabel-form").getByRole("radiogroup", { name: "Label" });
    const radio = (name: RegExp) => group.getByRole("radio", { name });
    await radio(/\+1/).click();
    expect(await radio(/\+1/).getAttribute("aria-checked")).toBe("true");
    const tabStops = () => group.locator('[role="radio"][tabindex="0"]').count();
    expect(await tabStops()).toBe(1);
    await page.keyboard.press("ArrowDown");
    expect(await radio(/^0/).getAttribute("aria-checked")).toBe("true");
    expect(await focused(page)).toMatchObject({ role: "radio", text: expect.stringMatching(/^0/) });
    await page.keyboard.press("ArrowRight");
    expect(await radio(/−1/).getAttribute("aria-checked")).toBe("true");
    await page.keyboard.press("ArrowDown");
    expect(await radio(/\+1/).getAttribute("aria-checked")).toBe("true");
    await page.keyboard.press("ArrowUp");
    expect(await radio(/−1/).getAttribute("aria-checked")).toBe("true");
    expect(await group.locator('[role="radio"][tabindex="0"]').textContent()).toMatch(/−1/);
    expect(await tabStops()).toBe(1);
    await page.close();
  });
});
