// A GUI episode on the stand-in of gui-rl's env_pool_server (built from the extracted protocol fixture),
// through the real recording proxy with a scripted stand-in policy: the policy sees each screenshot, its
// actions go to the pool, every screenshot is stored with the episode, and the pool's evaluate is the outcome.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGuiEpisode } from "../../../server/environments/episodes/guiRunner";
import { RemotePoolProvider } from "../../../server/environments/sandbox/remote/provider";
import { EnvironmentCreateInput } from "../../../server/environments/schemas";
import { createEnvironment } from "../../../server/environments/service";
import { EnvPoolServer } from "../../fakes/envPoolServer";
import { isolateRedis } from "../../helpers/isolate";
import { startApiServer } from "../../helpers/apiServer";
import { ADMIN, makeExperiment, makeKey } from "../../helpers/fixtures";
import { harness, type Harness } from "../proxy/setup";
import { examplesTaskSet } from "../../helpers/environments";

isolateRedis("env-gui");

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe("GUI episodes on a remote pool", () => {
  let h: Harness;
  let environmentId: string;
  let taskId: string;
  beforeAll(async () => {
    h = await harness();
    const env = await createEnvironment(
      ADMIN,
      EnvironmentCreateInput.parse({ experiment: h.experiment.id, name: "gui" }),
    );
    environmentId = env.id;
    taskId = (await examplesTaskSet(h.experiment.id)).taskId("examples/sort-names");
  });
  afterAll(() => h?.close());

  it("shows the policy each screenshot, stores every one with the episode, and takes the pool's score", async () => {
    const s = await new EnvPoolServer({ protocol: "gui", score: (c) => (c.includes('"DONE"') ? 1 : 0) }).start();
    const pool = new RemotePoolProvider({ protocol: "gui", urls: [s.url] });
    try {
      h.fake.reset();
      h.fake.enqueue({ content: "pyautogui.click(10, 10)" }, { content: "DONE" });
      const ep = await runGuiEpisode({
        environmentId,
        taskId,
        agent: { baseUrl: `${h.proxy.url}/v1`, apiKey: h.key, model: h.fake.model },
        pool,
      });
      expect(ep).toMatchObject({ status: "DONE", outcome: 1, truncation: null, sessionId: `episode-${ep.id}-1` });
      expect(ep.steps.map((st) => st.action)).toEqual([{ action: "pyautogui.click(10, 10)" }, { action: "DONE" }]);
      expect(ep.screenshots.map((sh) => sh.index)).toEqual([0, 1, 2]);
      for (const sh of ep.screenshots) expect(Buffer.from(sh.png).subarray(0, 4)).toEqual(PNG_MAGIC);
      expect(Buffer.from(ep.screenshots[1].png).equals(Buffer.from(ep.screenshots[2].png))).toBe(false);
      // The policy saw the reset's screenshot as an image part, then the one after its first action.
      const first = h.fake.requests[0].body.messages as { content: unknown }[];
      const parts = first[1].content as { type: string; image_url?: { url: string } }[];
      expect(parts[1].image_url?.url).toBe(
        `data:image/png;base64,${Buffer.from(ep.screenshots[0].png).toString("base64")}`,
      );
      const second = h.fake.requests[1].body.messages as { content: unknown }[];
      const last = second.at(-1)!.content as { image_url?: { url: string } }[];
      expect(last[1].image_url?.url).toBe(
        `data:image/png;base64,${Buffer.from(ep.screenshots[1].png).toString("base64")}`,
      );
      expect(s.requests.find((r) => r.path === "/reset")!.body).toMatchObject({
        task_config: { id: "examples/sort-names" },
      });
      expect(s.liveLeases()).toEqual([]);
      expect(s.violations).toEqual([]);

      // The Episode viewer's endpoints: which screenshots exist, then each image on its own.
      const api = await startApiServer();
      try {
        const get = (path: string, key: string) =>
          fetch(`${api.url}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
        const key = await makeKey(["read"], h.experiment.id);
        const episode = (await (await get(`/episodes/${ep.id}`, key)).json()) as { screenshots: { index: number }[] };
        expect(episode.screenshots).toEqual([{ index: 0 }, { index: 1 }, { index: 2 }]);
        const shot = await get(`/episodes/${ep.id}/screenshots/1`, key);
        expect(shot.status).toBe(200);
        expect(await shot.json()).toEqual({
          episodeId: ep.id,
          index: 1,
          mimeType: "image/png",
          base64: Buffer.from(ep.screenshots[1].png).toString("base64"),
        });
        expect((await get(`/episodes/${ep.id}/screenshots/3`, key)).status).toBe(404);
        const other = await makeKey(["read"], (await makeExperiment()).id);
        expect([403, 404]).toContain((await get(`/episodes/${ep.id}/screenshots/1`, other)).status);
      } finally {
        await api.close();
      }
    } finally {
      await s.kill();
    }
  });
});
