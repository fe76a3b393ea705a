// Metrics: the rollup trigger and bucketed series checked against the raw points they summarise, the
// catalogue, and live points over SSE from the Redis `metrics` channel.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../helpers/apiServer";
import { api, makeExperiment, makeKey, makeRun } from "../../helpers/fixtures";
import { db } from "../../../server/platform/db/client";
import { handleApi } from "../../../server/gateway/handler";
import { publish } from "../../../server/platform/bus/pubsub";

let server: Awaited<ReturnType<typeof startApiServer>>;
let call: ReturnType<typeof api>;
let key: string;
let exp: { id: string };
let runId: string;

const N = 100_000;
const T0 = Date.UTC(2026, 2, 1);
/** The value stored at step s (the same arithmetic in SQL below): deterministic, jumpy. */
const f = (s: number) => ((s * 7919) % 1000) / 10;
const SPIKE_STEP = 54_321;
const SPIKE = 1e6;
const value = (s: number) => (s === SPIKE_STEP ? SPIKE : f(s));

interface Point {
  x: number;
  last: number;
  min: number;
  max: number;
  mean: number;
  count: number;
  step: number | null;
  ts: number;
}
interface Series {
  runId: string | null;
  name: string;
  total: number;
  level: number;
  width: number;
  points: Point[];
}

beforeAll(async () => {
  server = await startApiServer();
  key = await makeKey(["read"]);
  call = api(server.url, { bearer: key });
  exp = await makeExperiment();
  runId = (await makeRun(exp.id)).id;
  // Two statements, so the trigger's upsert path (existing buckets) is exercised too.
  for (const [lo, hi] of [
    [1, N / 2],
    [N / 2 + 1, N],
  ]) {
    await db().$executeRaw`
      INSERT INTO metric_points ("experimentId", "runId", name, step, value, ts)
      SELECT ${exp.id}, ${runId}, 'train/loss', g,
             CASE WHEN g = ${SPIKE_STEP}::int THEN ${SPIKE}::float8 ELSE ((g * 7919) % 1000)::float8 / 10 END,
             ${new Date(T0).toISOString()}::timestamp + g * interval '1 second'
      FROM generate_series(${lo}::int, ${hi}::int) g`;
  }
}, 120_000);
afterAll(() => server.close());

async function series(query: Record<string, string>): Promise<{ axis: string; series: Series[] }> {
  const res = await call(
    "GET",
    `/api/v1/metrics/series?${new URLSearchParams({ experimentId: exp.id, runIds: runId, names: "train/loss", ...query })}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as { axis: string; series: Series[] };
}

/** Each bucket must summarise exactly the raw points after the previous bucket's last x, up to its own. */
function checkAgainstRaw(points: Point[], xOf: (s: number) => number, steps: number[]) {
  let i = 0;
  for (const p of points) {
    let min = Infinity;
    let max = -Infinity;
    let sum = 0;
    let count = 0;
    let lastStep = -1;
    while (i < steps.length && xOf(steps[i]!) <= p.x) {
      const v = value(steps[i]!);
      min = Math.min(min, v);
      max = Math.max(max, v);
      sum += v;
      count++;
      lastStep = steps[i]!;
      i++;
    }
    expect(count).toBe(p.count);
    expect(p.min).toBe(min);
    expect(p.max).toBe(max);
    expect(p.last).toBe(value(lastStep));
    expect(p.step).toBe(lastStep);
    expect(p.mean).toBeCloseTo(sum / count, 6);
  }
  expect(i).toBe(steps.length);
}

const allSteps = Array.from({ length: N }, (_, k) => k + 1);

describe("bucketed series", () => {
  it("by step: at most 1,000 points that keep min, max, last and count of every raw point (the spike survives)", async () => {
    const {
      series: [s],
    } = await series({ axis: "step" });
    expect(s!.total).toBe(N);
    expect(s!.points.length).toBeLessThanOrEqual(1000);
    expect(s!.points.length).toBeGreaterThan(500);
    expect(s!.level).toBeGreaterThan(0);
    checkAgainstRaw(s!.points, (st) => st, allSteps);
    expect(Math.max(...s!.points.map((p) => p.max))).toBe(SPIKE);
  });

  it("by time: the same guarantees with x in epoch milliseconds", async () => {
    const {
      series: [s],
    } = await series({ axis: "time", maxPoints: "300" });
    expect(s!.points.length).toBeLessThanOrEqual(300);
    checkAgainstRaw(s!.points, (st) => T0 + st * 1000, allSteps);
  });

  it("a zoomed range small enough is served from raw points, exactly", async () => {
    const {
      series: [s],
    } = await series({ axis: "step", from: "1000", to: "1499", maxPoints: "1000" });
    expect(s!.level).toBe(0);
    expect(s!.points.map((p) => p.x)).toEqual(Array.from({ length: 500 }, (_, k) => 1000 + k));
    expect(s!.points.every((p) => p.last === f(p.x) && p.count === 1)).toBe(true);
    const mid = await series({ axis: "step", from: "20000", to: "29999", maxPoints: "100" });
    expect(mid.series[0]!.points.length).toBeLessThanOrEqual(100);
    checkAgainstRaw(
      mid.series[0]!.points,
      (st) => st,
      Array.from({ length: 10_000 }, (_, k) => 20_000 + k),
    );
  });

  it("overlays runs and experiment-level series; unknown names are empty; the catalogue lists them", async () => {
    await db().metricPoint.createMany({
      data: [
        { experimentId: exp.id, runId: null, name: "proxy/requests_per_s", value: 3, ts: new Date(T0 + 1000) },
        { experimentId: exp.id, runId: null, name: "proxy/requests_per_s", value: 5, ts: new Date(T0 + 2000) },
      ],
    });
    const res = await call(
      "GET",
      `/api/v1/metrics/series?experimentId=${exp.id}&runIds=${runId},&names=proxy/requests_per_s,nope&axis=time`,
    );
    const body = res.body as unknown as { series: Series[] };
    expect(body.series.map((s) => [s.runId, s.name, s.total])).toEqual([
      [runId, "proxy/requests_per_s", 0],
      [runId, "nope", 0],
      [null, "proxy/requests_per_s", 2],
      [null, "nope", 0],
    ]);
    expect(body.series[2]!.points.map((p) => [p.x, p.last])).toEqual([
      [T0 + 1000, 3],
      [T0 + 2000, 5],
    ]);
    const cat = await call("GET", `/api/v1/metrics/catalog?experimentId=${exp.id}`);
    expect(cat.body).toEqual([
      {
        runId: null,
        name: "proxy/requests_per_s",
        count: 2,
        lastTs: new Date(T0 + 2000).toISOString(),
        last: 5,
        lastStep: null,
      },
      { runId, name: "train/loss", count: N, lastTs: new Date(T0 + N * 1000).toISOString(), last: f(N), lastStep: N },
    ]);
  });

  it("refuses runs of other experiments and validates input", async () => {
    const other = await makeExperiment();
    const otherRun = await makeRun(other.id);
    expect(
      (await call("GET", `/api/v1/metrics/series?experimentId=${exp.id}&runIds=${otherRun.id}&names=train/loss`))
        .status,
    ).toBe(404);
    expect(
      (await call("GET", `/api/v1/metrics/series?experimentId=${exp.id}&runIds=${runId}&names=train/loss&maxPoints=1`))
        .status,
    ).toBe(400);
  });
});

describe("live points over SSE", () => {
  it("streams the experiment's points published on Redis, filtered by run and name, after a ready event", async () => {
    const ctrl = new AbortController();
    const res = await handleApi(
      new Request(
        `http://local/api/stream/metrics?experimentId=${exp.id}&runIds=${runId}&names=train/loss,rollout/reward_mean`,
        {
          headers: { authorization: `Bearer ${key}` },
          signal: ctrl.signal,
        },
      ),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = "";
    const nextEvent = async (): Promise<{ event: string; data: string }> => {
      for (;;) {
        const end = buf.indexOf("\n\n");
        if (end >= 0) {
          const raw = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const event = /^event: (.*)$/m.exec(raw)?.[1];
          const data = /^data: (.*)$/m.exec(raw)?.[1];
          if (event) return { event, data: data ?? "" };
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("stream ended");
        buf += dec.decode(value, { stream: true });
      }
    };
    expect((await nextEvent()).event).toBe("ready");
    const other = await makeExperiment();
    await publish("metrics", {
      experimentId: other.id,
      runId: null,
      points: [{ name: "train/loss", value: 9, step: 1, ts: Date.now() }],
    });
    await publish("metrics", {
      experimentId: exp.id,
      runId: null,
      points: [{ name: "train/loss", value: 8, step: 1, ts: Date.now() }],
    });
    await publish("metrics", {
      experimentId: exp.id,
      runId,
      points: [
        { name: "train/grad_norm", value: 7, step: 5, ts: 1 },
        { name: "train/loss", value: 0.25, step: 5, ts: 2 },
      ],
    });
    const ev = await nextEvent();
    expect(ev.event).toBe("points");
    expect(JSON.parse(ev.data)).toEqual({
      experimentId: exp.id,
      runId,
      points: [{ name: "train/loss", value: 0.25, step: 5, ts: 2 }],
    });
    ctrl.abort();
    await reader.cancel().catch(() => {});
  });

  it("needs credentials and access to the experiment", async () => {
    const anon = await handleApi(new Request(`http://local/api/stream/metrics?experimentId=${exp.id}`));
    expect(anon.status).toBe(401);
    const other = await makeExperiment();
    const bound = await makeKey(["read"], other.id);
    const res = await handleApi(
      new Request(`http://local/api/stream/metrics?experimentId=${exp.id}`, {
        headers: { authorization: `Bearer ${bound}` },
      }),
    );
    expect(res.status).toBe(403);
  });
});
