// The Users view of a per-user experiment in the browser: each end user's served adapter version and samples,
// a per-user rollback (the user is then served the base), base vs a user's adapter side by side on their prompts,
// and the experiment page's link and account of what trains the adapters.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { perUserTick } from "../../server/personalization/schedule";
import { makeEndUserTurn } from "../helpers/endUserTurns";
import { makeExperiment, uniq } from "../helpers/fixtures";
import { BASE_URL, createAndReadConfig, launchBrowser, openNewExperiment, signInAsNewUser } from "./helpers";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe("the Users view", () => {
  it("lists end users with their served adapter, rolls one back, compares base and adapter, draws the curves", async () => {
    const name = uniq("Per-user");
    const e = await makeExperiment(
      { personalization: "per-user", perUser: { minSamples: 2, heldOutFraction: 0 } },
      { name },
    );
    // Users of their own: the live demo's simulated users are also called maya and leo.
    const [maya, leo] = [uniq("maya"), uniq("leo")];
    for (const user of [maya, leo])
      for (const i of [0, 1])
        await makeEndUserTurn({
          experimentId: e.id,
          endUserId: user,
          prompt: `q${i}`,
          reply: "Ok.",
          reward: i ? 1 : -1,
        });
    // The same two users on a shared policy: the twin the curves are drawn beside unless another is picked.
    const twinName = uniq("Shared twin");
    const twin = await makeExperiment({}, { name: twinName });
    for (const user of [maya, leo])
      await makeEndUserTurn({ experimentId: twin.id, endUserId: user, prompt: "q0", reply: "Ok.", reward: 1 });
    await perUserTick([e.id]);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInAsNewUser(page);
    await page.goto(`${BASE_URL}/experiments/${e.id}`);
    // What trains the adapters on the embedded trainer: the per-user settings, not the shared method's hyperparameters.
    const config = page.locator(".card").filter({ has: page.getByRole("heading", { name: "Configuration" }) });
    await config.getByText("per-user adapters: policy gradient with hindsight demonstrations").waitFor();
    // the style demonstrations (stylePrompts' default) are named with their prompts' source
    await config.getByText(/and on up to 32 of the base's own prompts per step/).waitFor();
    expect(await config.getByText("Hyperparameters", { exact: true }).count()).toBe(0);
    await page.getByRole("navigation", { name: "This experiment's data" }).getByRole("link", { name: "Users" }).click();
    await page.waitForURL(/\/users$/);
    const table = page.getByRole("table", { name: "End users" });
    const row = (user: string) => table.getByRole("row").filter({ has: page.getByRole("link", { name: user }) });
    await row(maya).getByRole("cell", { name: "v1" }).waitFor();
    await row(leo).getByRole("cell", { name: "v1" }).waitFor();
    // Two judged sessions each (disliked, then liked): no three liked in a row yet.
    await table.getByRole("columnheader", { name: "Sessions until stable" }).waitFor();
    await row(leo).getByRole("cell", { name: "not yet (2 sessions)" }).waitFor();
    await row(maya).getByRole("button", { name: "Roll back" }).click();
    await row(maya).getByRole("cell", { name: "base" }).waitFor();
    await row(leo).getByRole("cell", { name: "v1" }).waitFor();

    // Side by side: Leo's two prompts, each with the base's reply and his adapter's.
    expect(await row(maya).getByRole("button", { name: "Compare" }).isDisabled()).toBe(true);
    await row(leo).getByRole("button", { name: "Compare" }).click();
    const panel = page.getByRole("region", { name: "Base vs adapter" });
    await panel.getByRole("heading", { name: `${leo}: base vs v1` }).waitFor();
    const pairs = panel.getByRole("table", { name: "Side by side" });
    await pairs.getByRole("columnheader", { name: "Adapter v1" }).waitFor();
    await pairs.getByRole("row").filter({ hasText: "q0" }).waitFor();
    await pairs.getByRole("row").filter({ hasText: "q1" }).waitFor();

    // The twin's curve beside the users': every turn here was served by the base (v0), rewards −1 and 1; the twin's
    // one turn per user scored 1. Picking this experiment instead draws its own main turns.
    const curves = page.getByRole("region", { name: "Reward curves" });
    const drawn = (shared: string) =>
      curves
        .getByRole("img", {
          name: `shared policy (${shared}): v0 ${shared === name ? "0.00" : "1.00"}; ${leo}: v0 0.00; ${maya}: v0 0.00`,
        })
        .waitFor();
    await drawn(twinName);
    expect(await curves.getByLabel("Shared policy of").inputValue()).toBe(twin.id);
    await curves.getByLabel("Shared policy of").selectOption(e.id);
    await drawn(name);
    await page.close();
  });

  it("shows the shared adapter new users are served, and who it serves, and rolls it back", async () => {
    const e = await makeExperiment({
      personalization: "per-user",
      perUser: { minSamples: 2, heldOutFraction: 0, newUsers: "shared" },
    });
    const [maya, leo] = [uniq("maya"), uniq("leo")];
    for (const [user, n] of [
      [maya, 2],
      [leo, 1],
    ] as const)
      for (let i = 0; i < n; i++)
        await makeEndUserTurn({ experimentId: e.id, endUserId: user, prompt: `q${i}`, reply: "Ok.", reward: 1 });
    // Maya has enough for her own adapter, Leo not: he is served the one trained on everyone.
    await perUserTick([e.id]);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInAsNewUser(page);
    await page.goto(`${BASE_URL}/experiments/${e.id}/users`);
    const table = page.getByRole("table", { name: "End users" });
    const everyone = table.getByRole("row").filter({ hasText: "everyone (new users)" });
    const row = (user: string) => table.getByRole("row").filter({ has: page.getByRole("link", { name: user }) });
    await everyone.getByRole("cell", { name: "v1", exact: true }).waitFor();
    await row(maya).getByRole("cell", { name: "v1", exact: true }).waitFor();
    await row(leo).getByRole("cell", { name: "shared v1" }).waitFor();
    expect(await everyone.getByRole("button", { name: "Delete" }).count()).toBe(0);
    await everyone.getByRole("button", { name: "Roll back" }).click();
    await row(leo).getByRole("cell", { name: "base" }).waitFor();
    await row(maya).getByRole("cell", { name: "v1", exact: true }).waitFor();
    await page.close();
  });

  it("sets the per-user scheduler's options in the experiment form", async () => {
    const { page, name } = await openNewExperiment(browser, "Scheduled users");
    await page.locator('select[name="personalization"]').selectOption("per-user");
    await page.locator('input[name="perUser.maxSamplesPerVersion"]').fill("32");
    await page.locator('input[name="perUser.idleAfterS"]').fill("600");
    await page.getByLabel("Train from UTC hour").fill("22");
    await page.getByLabel("Train until UTC hour").fill("6");
    // The learning options the bench tuned show their defaults, and can be changed.
    await expect.poll(() => page.locator('input[name="perUser.gradClip"]').inputValue()).toBe("0.4");
    await page.locator('input[name="perUser.gradClip"]').fill("0.8");
    await page.locator('select[name="perUser.rememberedHint"]').selectOption("false");
    await page.locator('select[name="perUser.newUsers"]').selectOption("shared");
    // The anchor to the base: on by default (β 0.03, the user's own replies), widened to the demonstrations here.
    await expect.poll(() => page.locator('input[name="perUser.baseKlCoef"]').inputValue()).toBe("0.03");
    expect(await page.locator('select[name="perUser.baseKlScope"]').inputValue()).toBe("samples");
    await page.locator('input[name="perUser.baseKlCoef"]').fill("0.05");
    await page.locator('select[name="perUser.baseKlScope"]').selectOption("all");
    // The teacher's temperature: 0.7 by default, changed.
    expect(await page.locator('input[name="perUser.hindsightTemperature"]').inputValue()).toBe("0.7");
    await page.locator('input[name="perUser.hindsightTemperature"]').fill("0.5");
    // The seed is optional: typed and cleared again, it stays unset (derived from the experiment's id).
    await page.locator('input[name="perUser.seed"]').fill("7");
    await page.locator('input[name="perUser.seed"]').fill("");
    const { perUser } = await createAndReadConfig(page, name);
    expect(perUser.seed).toBeUndefined();
    expect(perUser).toMatchObject({
      maxSamplesPerVersion: 32,
      idleAfterS: 600,
      windowUtc: { from: 22, to: 6 },
      gradClip: 0.8,
      rememberedHint: false,
      newUsers: "shared",
      baseKlCoef: 0.05,
      baseKlScope: "all",
      hindsightTemperature: 0.5,
    });
    await page.close();
  });

  it("sets how many users' adapters an SGLang engine keeps loaded", async () => {
    const { page, name } = await openNewExperiment(browser, "Users on SGLang");
    await page.locator('select[name="personalization"]').selectOption("per-user");
    await page.locator('select[name="trainer.backend"]').selectOption("hf-local");
    await page.locator('select[name="policy.kind"]').selectOption("sglang");
    await page.locator('input[name="policy.baseUrl"]').fill("http://127.0.0.1:30001/v1");
    await page.locator('input[name="policy.model"]').fill("Qwen3-4B");
    await page.locator('select[name="policy.loraAdapters"]').selectOption("sglang");
    await page.locator('input[name="policy.loraMaxLoaded"]').fill("4");
    expect((await createAndReadConfig(page, name)).policy).toMatchObject({
      kind: "sglang",
      loraAdapters: "sglang",
      loraMaxLoaded: 4,
    });
    await page.close();
  });
});
