// URL state through the zod input schemas (app/_ui/useSearchState.ts) and the review page's reducer: pure parts,
// no browser.
import { describe, expect, it } from "vitest";
import { TurnFilterSchema } from "../../../server/trajectories/schemas";
import { parseSearch, toParam, toQuery } from "../../../app/_ui/useSearchState";
import { MetricsSearch } from "../../../app/(console)/metrics/_hooks/useMetricsView";
import { initialReview, reviewReducer } from "../../../app/(console)/review/[queueId]/_hooks/useReviewSession";

describe("useSearchState parsing", () => {
  it("types each key through the service's schema and drops only the bad ones", () => {
    const f = parseSearch(
      TurnFilterSchema,
      new URLSearchParams(
        "experimentId=e1&turnType=MAIN&status=BOGUS&relabeled=false&policyVersion=3&from=2026-01-02T03:04:05.000Z&other=x",
      ),
    );
    expect(f).toEqual({
      experimentId: "e1",
      turnType: "MAIN",
      relabeled: false,
      policyVersion: 3,
      from: new Date("2026-01-02T03:04:05.000Z"),
    });
  });

  it("writes back the canonical query in the schema's order, and round-trips", () => {
    const raw = "experimentId=e1&score=-1&turnType=MAIN";
    const f = parseSearch(TurnFilterSchema, new URLSearchParams(raw));
    expect(toQuery(TurnFilterSchema, f)).toBe("experimentId=e1&turnType=MAIN&score=-1");
    expect(parseSearch(TurnFilterSchema, new URLSearchParams(toQuery(TurnFilterSchema, f)))).toEqual(f);
  });

  it("clears a key set to undefined, null, an empty string or an empty list; joins lists", () => {
    expect([undefined, null, "", []].map((v) => toParam(v))).toEqual([undefined, undefined, undefined, undefined]);
    expect(toParam(false)).toBe("false");
    expect(toParam(0)).toBe("0");
    expect(toParam(["a", "", "b"])).toBe("a,,b");
  });

  it("fills defaults and clamps the metrics view's smoothing", () => {
    expect(parseSearch(MetricsSearch, new URLSearchParams("smooth=5&axis=sideways&runIds=r1,"))).toEqual({
      axis: "step",
      smooth: 0.99,
      runIds: ["r1", ""],
    });
    expect(parseSearch(MetricsSearch, new URLSearchParams("smooth=abc")).smooth).toBe(0);
  });
});

describe("review session reducer", () => {
  it("starts the form from the training label, counts submissions, toggles help", () => {
    let s = reviewReducer(initialReview, { type: "show", item: null });
    expect(s.empty).toBe(true);
    s = reviewReducer(s, { type: "turnLoaded", value: -0.7, hint: "shorter" });
    expect([s.value, s.hint, s.exclude]).toEqual([-1, "shorter", false]);
    s = reviewReducer(reviewReducer(s, { type: "toggleExclude" }), { type: "submitted", notice: "done" });
    expect([s.exclude, s.done, s.notice]).toEqual([true, 1, "done"]);
    s = reviewReducer(s, { type: "turnLoaded", value: null, hint: null });
    expect([s.value, s.hint, s.exclude]).toEqual([null, "", false]);
    expect(reviewReducer(s, { type: "help", open: "toggle" }).help).toBe(true);
  });
});
