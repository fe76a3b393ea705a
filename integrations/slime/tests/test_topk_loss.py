import math
import sys
import unittest

import integrations.slime.topk_loss as topk
from integrations.slime.topk_loss import topk_tail_entropy, topk_tail_kl, with_tail


class TopKLossTest(unittest.TestCase):
    def test_imports_without_torch(self):
        self.assertTrue(callable(topk.topk_distillation_loss_function))
        self.assertNotIn("torch", sys.modules)

    def test_tail_bin_holds_the_remaining_mass(self):
        got = with_tail([math.log(0.5), math.log(0.25)])
        self.assertAlmostEqual(math.exp(got[2]), 0.25)
        self.assertAlmostEqual(sum(math.exp(x) for x in got), 1.0)

    def test_reverse_kl_over_topk_plus_tail_by_hand(self):
        # student (.5, .25 | tail .25), teacher (.25, .25 | tail .5):
        # KL(s||t) = .5 ln(.5/.25) + .25 ln(1) + .25 ln(.25/.5) = .25 ln 2
        s = [[math.log(0.5), math.log(0.25)]]
        t = [[math.log(0.25), math.log(0.25)]]
        self.assertAlmostEqual(topk_tail_kl(s, t)[0], 0.25 * math.log(2))
        # It is the reverse KL: swapping the arguments gives KL(t||s) = .25 ln .5 + .5 ln 2 = .25 ln 2 too here,
        # so check an asymmetric pair: s=(.9|.1), t=(.5|.5).
        s2, t2 = [[math.log(0.9)]], [[math.log(0.5)]]
        want = 0.9 * math.log(0.9 / 0.5) + 0.1 * math.log(0.1 / 0.5)
        self.assertAlmostEqual(topk_tail_kl(s2, t2)[0], want)
        self.assertNotAlmostEqual(topk_tail_kl(t2, s2)[0], want)

    def test_identical_distributions_give_zero_and_full_mass_is_clamped(self):
        row = [math.log(0.7), math.log(0.2)]
        self.assertAlmostEqual(topk_tail_kl([row], [row])[0], 0.0)
        # All mass in the top-K: the clamp keeps the tail finite (log(1 - e^-1e-7) ~ -16.1).
        full = with_tail([0.0])
        self.assertTrue(math.isfinite(full[1]))
        self.assertAlmostEqual(full[1], math.log(1e-7), places=3)

    def test_entropy_of_the_k_plus_tail_distribution(self):
        h = topk_tail_entropy([[math.log(0.5)]])[0]
        self.assertAlmostEqual(h, math.log(2))

    def test_mismatched_rows_are_refused(self):
        with self.assertRaises(ValueError):
            topk_tail_kl([[0.0]], [])
        with self.assertRaises(ValueError):
            topk_tail_kl([[-1.0, -2.0]], [[-1.0]])

    def test_missing_batch_fields_are_named(self):
        self.assertEqual(topk._missing_fields({"teacher_topk_log_probs": [1]}), ["teacher_topk_indices"])


if __name__ == "__main__":
    unittest.main()
