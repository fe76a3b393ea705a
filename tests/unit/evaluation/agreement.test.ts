// Cohen's κ and the confusion matrix on cases computed by hand.
import { describe, expect, it } from "vitest";
import { agreementOf, agreementWarning } from "../../../server/evaluation/agreement";

const pairs = (spec: [number, number, number][]) =>
  spec.flatMap(([human, judge, n]) => Array.from({ length: n }, () => ({ human, judge })));

describe("judge–human agreement", () => {
  it("binary case: po = 0.7, pe = 0.5 → κ = 0.4", () => {
    // 20 turns: human +1 & judge +1: 7, human +1 & judge −1: 3, human −1 & judge +1: 3, human −1 & judge −1: 7.
    // po = 14/20 = 0.7; marginals are 10/10 on both sides so pe = 0.5·0.5 + 0.5·0.5 = 0.5; κ = 0.2/0.5 = 0.4.
    const a = agreementOf(
      pairs([
        [1, 1, 7],
        [1, -1, 3],
        [-1, 1, 3],
        [-1, -1, 7],
      ]),
    );
    expect(a.n).toBe(20);
    expect(a.accuracy).toBeCloseTo(0.7, 12);
    expect(a.kappa).toBeCloseTo(0.4, 12);
    // rows: human −1, 0, +1; columns: judge −1, 0, +1
    expect(a.confusion).toEqual([
      [7, 0, 3],
      [0, 0, 0],
      [3, 0, 7],
    ]);
  });

  it("three classes with skewed marginals", () => {
    // human −1: judge −1 ×4, judge 0 ×1; human 0: judge 0 ×2, judge +1 ×1; human +1: judge +1 ×6, judge −1 ×1, judge 0 ×0.
    // n = 15, po = (4+2+6)/15 = 0.8. Row sums 5, 3, 7; column sums 5, 3, 7.
    // pe = (5·5 + 3·3 + 7·7)/225 = 83/225; κ = (0.8 − 83/225)/(1 − 83/225) = (180 − 83)/(225 − 83) = 97/142.
    const a = agreementOf(
      pairs([
        [-1, -1, 4],
        [-1, 0, 1],
        [0, 0, 2],
        [0, 1, 1],
        [1, 1, 6],
        [1, -1, 1],
      ]),
    );
    expect(a.accuracy).toBeCloseTo(0.8, 12);
    expect(a.kappa).toBeCloseTo(97 / 142, 12);
    expect(a.confusion).toEqual([
      [4, 1, 0],
      [0, 2, 1],
      [1, 0, 6],
    ]);
  });

  it("κ is 0 for chance-level agreement, negative below it, undefined when both raters use one class", () => {
    // Judge always +1, human half/half: po = 0.5, pe = 0.5·1 = 0.5 → κ = 0.
    expect(
      agreementOf(
        pairs([
          [1, 1, 5],
          [-1, 1, 5],
        ]),
      ).kappa,
    ).toBeCloseTo(0, 12);
    // Systematic disagreement: po = 0, pe = 0.5 → κ = −1.
    expect(
      agreementOf(
        pairs([
          [1, -1, 5],
          [-1, 1, 5],
        ]),
      ).kappa,
    ).toBeCloseTo(-1, 12);
    expect(agreementOf(pairs([[1, 1, 4]])).kappa).toBeNull();
    expect(agreementOf([]).accuracy).toBeNull();
  });

  it("warns only when κ is below the threshold over at least N labelled turns", () => {
    const low = agreementOf(
      pairs([
        [1, 1, 7],
        [1, -1, 3],
        [-1, 1, 3],
        [-1, -1, 7],
      ]),
    ); // κ 0.4, n 20
    expect(agreementWarning(low, { kappaThreshold: 0.6, minLabeled: 20 })).toMatch(/κ = 0\.40 \(< 0\.6\) over 20/);
    expect(agreementWarning(low, { kappaThreshold: 0.6, minLabeled: 21 })).toBeNull();
    expect(agreementWarning(low, { kappaThreshold: 0.39, minLabeled: 20 })).toBeNull();
    expect(agreementWarning(undefined, { kappaThreshold: 0.6, minLabeled: 1 })).toBeNull();
  });
});
