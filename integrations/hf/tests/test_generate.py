"""Sampling's per-step pick: the chosen ids and their temperature-1 log-probs, on a hand-built step."""

import math
import unittest

import torch

from integrations.hf.generate import SamplingParams, _pick, _pick_rows


def seeded(seed: int) -> torch.Generator:
    g = torch.Generator(device="cpu")
    g.manual_seed(seed)
    return g


class PickRowsTest(unittest.TestCase):
    def setUp(self):
        # Five rows over a vocabulary of 4: greedy, plain sampling, seeded, top-k 1, and a finished row.
        self.logits = torch.tensor([
            [0.0, 3.0, 1.0, 0.0],
            [0.0, 0.0, 50.0, 0.0],
            [1.0, 2.0, 3.0, 4.0],
            [2.0, 0.0, 0.0, 5.0],
            [9.0, 0.0, 0.0, 0.0],
        ])
        self.params = [SamplingParams(temperature=0), SamplingParams(temperature=0.7), SamplingParams(seed=11),
                       SamplingParams(top_k=1), SamplingParams()]
        self.gens = [None, None, seeded(11), None, None]
        self.done = [False, False, False, False, True]

    def test_each_row_picks_by_its_own_parameters_and_reports_the_temperature_1_logprob(self):
        toks, lps = _pick_rows(self.logits, self.params, self.gens, self.done)
        expected_seeded = _pick(self.logits[2], self.params[2], seeded(11))
        self.assertEqual(toks[:4], [1, 2, expected_seeded, 3])
        # log_softmax of the raw logits (temperature 1), whatever temperature sampled the row.
        for i in range(4):
            row = self.logits[i]
            want = float(row[toks[i]] - torch.logsumexp(row, -1))
            self.assertAlmostEqual(lps[i], want, places=5)
        # Row 1 at temperature 0.7: e^(50/0.7) dominates, so the pick is certain; its log-prob is ≈ 0.
        self.assertTrue(math.isclose(lps[1], 0.0, abs_tol=1e-6))

    def test_a_seeded_row_repeats_and_plain_rows_follow_their_distribution(self):
        a, _ = _pick_rows(self.logits, self.params, [None, None, seeded(5), None, None], self.done)
        b, _ = _pick_rows(self.logits, self.params, [None, None, seeded(5), None, None], self.done)
        self.assertEqual(a[2], b[2])
        # Plain rows at temperature 1 over logits log(0.25), log(0.75): about 3 of 4 draws pick id 1.
        logits = torch.log(torch.tensor([[0.25, 0.75]] * 64))
        torch.manual_seed(0)
        draws = [t for _ in range(40) for t in _pick_rows(logits, [SamplingParams()] * 64, [None] * 64, [False] * 64)[0]]
        share = sum(draws) / len(draws)
        self.assertGreater(share, 0.7)
        self.assertLess(share, 0.8)


if __name__ == "__main__":
    unittest.main()
