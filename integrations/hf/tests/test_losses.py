"""Each loss on hand-computed cases (slime's semantics: integrations/hf/losses.py)."""

import math
import random
import unittest

try:
    import torch
except ImportError:  # the suite reports itself skipped where python3-torch is missing
    torch = None

needs_torch = unittest.skipUnless(torch is not None, "needs torch (Debian: apt-get install python3-torch)")


@needs_torch
class PolicyLossTest(unittest.TestCase):
    def setUp(self):
        from integrations.hf import losses

        self.losses = losses

    def case(self, ratio, adv, c=None):
        kl = torch.tensor([-math.log(ratio)])
        loss, clip = self.losses.policy_loss(kl, torch.tensor([float(adv)]), 0.2, 0.28, c)
        return round(float(loss), 6), float(clip)

    def test_ppo_clip_with_asymmetric_epsilons(self):
        self.assertEqual(self.case(1.5, 1), (-1.28, 1.0))  # capped at 1 + ε_high
        self.assertEqual(self.case(1.1, 1), (-1.1, 0.0))
        self.assertEqual(self.case(0.5, -1), (0.8, 1.0))  # capped at 1 − ε_low
        self.assertEqual(self.case(1.0, 2), (-2.0, 0.0))

    def test_dual_clip_bounds_negative_advantages_only(self):
        self.assertEqual(self.case(5.0, -1), (5.0, 0.0))
        self.assertEqual(self.case(5.0, -1, c=3.0), (3.0, 0.0))
        self.assertEqual(self.case(5.0, 1, c=3.0), (-1.28, 1.0))
        with self.assertRaises(ValueError):
            self.case(1.0, 1, c=0.5)

    def test_sample_mean_and_token_mean(self):
        x = torch.tensor([1.0, 2.0, 3.0, 10.0, 30.0])
        masks = [torch.tensor([1.0, 1.0, 1.0]), torch.tensor([1.0, 1.0])]
        self.assertAlmostEqual(float(self.losses.sample_mean(x, masks)), (2 + 20) / 2)
        self.assertAlmostEqual(float(self.losses.token_mean(x, masks)), 46 / 5, places=5)
        masked = [torch.tensor([1.0, 1.0, 0.0]), torch.tensor([0.0, 0.0])]
        self.assertAlmostEqual(float(self.losses.sample_mean(x, masked)), (1.5 + 0) / 2)


@needs_torch
class AdvantageTest(unittest.TestCase):
    def setUp(self):
        from integrations.hf import losses

        self.adv = losses.advantages
        self.losses = losses

    def test_methods(self):
        teacher, old = [torch.tensor([-1.0, -2.0])], [torch.tensor([-1.5, -1.5])]
        self.assertEqual(self.adv("grpo", [1.0], teacher, old).tolist(), [1.0, 1.0])
        self.assertEqual(self.adv("opd", [1.0], teacher, old).tolist(), [0.5, -0.5])
        self.assertEqual(self.adv("combine", [1.0], teacher, old, w_opd=2, w_rl=0.5).tolist(), [1.5, -0.5])
        self.assertEqual(self.adv("combine", [1.0], teacher, old, w_opd=2, w_rl=0.5, clamp=0.25).tolist(), [1.0, 0.0])
        # No teacher log-probs: no OPD term.
        self.assertEqual(self.adv("combine", [-1.0], [None], old, w_opd=2, w_rl=0.5).tolist(), [-0.5, -0.5])

    def test_matches_the_slime_combine_port(self):
        from integrations.slime.combine_loss import combined_advantages

        rnd = random.Random(3)
        teacher = [[rnd.uniform(-3, 0) for _ in range(4)], [rnd.uniform(-3, 0) for _ in range(2)]]
        old = [[rnd.uniform(-3, 0) for _ in range(4)], [rnd.uniform(-3, 0) for _ in range(2)]]
        rewards = [1.0, -1.0]
        grpo = [1.0] * 4 + [-1.0] * 2
        expected = combined_advantages(teacher, old, grpo, 0.7, 1.3, 0.5)
        got = self.adv("combine", rewards, [torch.tensor(t) for t in teacher], [torch.tensor(o) for o in old], 0.7, 1.3, 0.5)
        for a, b in zip(got.tolist(), expected):
            self.assertAlmostEqual(a, b, places=5)

    def test_whiten(self):
        a = self.losses.whiten(torch.tensor([1.0, 3.0, 100.0]), [torch.tensor([1.0, 1.0, 0.0])])
        self.assertAlmostEqual(float(a[0]), -1.0, places=5)
        self.assertAlmostEqual(float(a[1]), 1.0, places=5)


@needs_torch
class DistillationTest(unittest.TestCase):
    def setUp(self):
        from integrations.hf import losses

        self.losses = losses
        self.teacher = torch.tensor([[0.5, 0.3, 0.2]]).log()
        self.student = torch.tensor([[0.2, 0.3, 0.5]]).log()

    def test_topk_with_tail(self):
        kl = self.losses.topk_kl(self.student, self.teacher, 1)
        self.assertAlmostEqual(float(kl), 0.2 * math.log(0.2 / 0.5) + 0.8 * math.log(0.8 / 0.5), places=6)
        kl2 = self.losses.topk_kl(self.student, self.teacher, 2)
        self.assertAlmostEqual(float(kl2), 0.2 * math.log(0.4) + 0.3 * math.log(1.0) + 0.5 * math.log(0.5 / 0.2), places=5)

    def test_full_vocabulary(self):
        kl = self.losses.full_kl(self.student, self.teacher)
        self.assertAlmostEqual(float(kl), 0.2 * math.log(0.4) + 0.5 * math.log(2.5), places=6)

    def test_topk_matches_a_plain_python_tail_kl(self):
        # The reference's openclaw-opd top-K + tail bin, written out per token (its slime port was replaced by
        # upstream's student top-K OPD, integrations/slime/topk_loss.py).
        def topk_tail_kl(student_rows, teacher_rows):
            def tail(row):
                log_mass = min(math.log(sum(math.exp(x) for x in row)), -1e-7)
                return list(row) + [math.log(-math.expm1(log_mass))]

            return [sum(math.exp(a) * (a - b) for a, b in zip(tail(s), tail(t))) for s, t in zip(student_rows, teacher_rows)]

        g = torch.Generator().manual_seed(0)
        s = torch.log_softmax(torch.randn(3, 11, generator=g), -1)
        t = torch.log_softmax(torch.randn(3, 11, generator=g), -1)
        t_top, idx = t.topk(4, -1)
        expected = topk_tail_kl(s.gather(-1, idx).tolist(), t_top.tolist())
        for a, b in zip(self.losses.topk_kl(s, t, 4).tolist(), expected):
            self.assertAlmostEqual(a, b, places=5)

    def test_gradient_flows_to_the_student_only(self):
        s = self.student.clone().requires_grad_(True)
        t = self.teacher.clone().requires_grad_(True)
        self.losses.full_kl(torch.log_softmax(s, -1), t).sum().backward()
        self.assertIsNotNone(s.grad)
        self.assertIsNone(t.grad)



@needs_torch
class HintSelectionTest(unittest.TestCase):
    """Upstream's --hint-selection (hint_opd_select_loss.py) on a 3-token, 6-word case worked out by hand."""

    def setUp(self):
        from integrations.hf import losses

        self.losses = losses
        # Log-probs whose top-2 are the listed ids (the rest much lower). Student top-2: {0,1}, {2,3}, {4,5}.
        self.student = self.dist([[0, 1], [2, 3], [4, 5]])
        # Candidate 0 (shortest hint): {0,5}, {2,3}, {1,2} → overlaps 1, 2, 0 (sum 3)
        # Candidate 1:                  {0,1}, {0,1}, {5,4} → overlaps 2, 0, 2 (sum 4)
        self.c0 = self.dist([[0, 5], [2, 3], [1, 2]])
        self.c1 = self.dist([[0, 1], [0, 1], [5, 4]])

    def dist(self, tops):
        rows = []
        for top in tops:
            logits = torch.full((6,), -10.0)
            logits[top[0]], logits[top[1]] = 2.0, 1.0
            rows.append(torch.log_softmax(logits, -1))
        return torch.stack(rows)

    def test_token_optimal_takes_the_best_overlap_per_token(self):
        got = self.losses.select_teacher(self.student, [self.c0, self.c1], 2, "token_optimal")
        self.assertTrue(torch.equal(got, torch.stack([self.c1[0], self.c0[1], self.c1[2]])))

    def test_sequence_optimal_takes_one_candidate_for_the_response(self):
        got = self.losses.select_teacher(self.student, [self.c0, self.c1], 2, "sequence_optimal")
        self.assertTrue(torch.equal(got, self.c1))

    def test_ties_and_shortest_keep_candidate_0(self):
        self.assertTrue(torch.equal(self.losses.select_teacher(self.student, [self.c0, self.c1], 2, "shortest"), self.c0))
        # k = the vocabulary: every overlap is 6, so both modes keep the shorter hint
        for mode in ("token_optimal", "sequence_optimal"):
            self.assertTrue(torch.equal(self.losses.select_teacher(self.student, [self.c0, self.c1], 6, mode), self.c0))
        with self.assertRaises(ValueError):
            self.losses.select_teacher(self.student, [self.c0], 2, "longest")

if __name__ == "__main__":
    unittest.main()
