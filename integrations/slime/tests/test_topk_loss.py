"""The top-K OPD loss (upstream's _opd_one_sample, PRs #99/#109) on tiny cases computed by hand, and its inputs
against what the fork at the pinned commit really puts in the batch (tests/fixtures/slime/sample-contract.json)."""

import importlib.util
import math
import os
import subprocess
import sys
import unittest

import integrations.slime.topk_loss as topk
from fakes import sample_contract
from integrations.slime.topk_loss import knobs, opd_token_loss

LN2 = math.log(2)
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PINNED = sample_contract()["commits"][-1]


class TopKTokenLossTest(unittest.TestCase):
    def test_imports_without_torch(self):
        self.assertTrue(callable(topk.topk_opd_loss_function))
        # In a fresh interpreter: another test of this run may have imported torch.
        probe = "import sys, integrations.slime.topk_loss; assert 'torch' not in sys.modules"
        done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_student_subset_on_policy_by_hand(self):
        # S_t = student top-2 {5, 7}; old = cur (on-policy, rho = 1): w = softmax(ln .5, ln .25) = (2/3, 1/3).
        # Teacher (gathered at the same ids): ln .25, ln .5 -> diff = (-ln 2, +ln 2), inside the clip 2.
        # A = (-2/3 ln 2, +1/3 ln 2); L = sum -A = 2/3 ln 2 - 1/3 ln 2 = ln 2 / 3.
        old = [math.log(0.5), math.log(0.25)]
        pg, clipfrac, monitor, valid = opd_token_loss([5, 7], old, old, [5, 7], [math.log(0.25), math.log(0.5)], 0.2, 0.28, 2.0)
        self.assertTrue(valid)
        self.assertAlmostEqual(pg, LN2 / 3)
        self.assertEqual(clipfrac, 0.0)
        self.assertAlmostEqual(monitor, LN2)  # w-weighted |diff|: (2/3 + 1/3) ln 2

    def test_the_advantage_difference_clip(self):
        # One candidate: w = 1. The teacher is e^-3 below the student: diff -3, clipped to -1 with c = 1.
        old = [math.log(0.5)]
        teacher = [math.log(0.5) - 3.0]
        self.assertAlmostEqual(opd_token_loss([1], old, old, [1], teacher, 0.2, 0.28, 1.0)[0], 1.0)
        self.assertAlmostEqual(opd_token_loss([1], old, old, [1], teacher, 0.2, 0.28, None)[0], 3.0)
        # The clip bounds the advantage, not the importance weight: two candidates, both far apart.
        pg, _, monitor, _ = opd_token_loss([1, 2], [math.log(0.6), math.log(0.2)], [math.log(0.6), math.log(0.2)], [1, 2], [math.log(0.6) + 5, math.log(0.2) - 5], 0.2, 0.28, 2.0)
        # w = (3/4, 1/4); diff = (+2, -2) after the clip; L = -(3/4·2) + (1/4·2) = -1.
        self.assertAlmostEqual(pg, -1.0)
        self.assertAlmostEqual(monitor, 2.0)

    def test_the_ppo_clip_on_the_global_ratio(self):
        # A = +ln 2 · 1 > 0 and the current policy already moved ×1.5: the clipped ratio 1.28 wins the max.
        old = [math.log(0.4)]
        cur = [math.log(0.6)]
        pg, clipfrac, _, _ = opd_token_loss([3], old, cur, [3], [math.log(0.8)], 0.2, 0.28, 2.0)
        self.assertAlmostEqual(pg, -1.28 * LN2)
        self.assertEqual(clipfrac, 1.0)
        # With A < 0 the same ratio is not clipped (max(-A·1.5, -A·1.28) = -A·1.5).
        pg, clipfrac, _, _ = opd_token_loss([3], old, cur, [3], [math.log(0.2)], 0.2, 0.28, 2.0)
        self.assertAlmostEqual(pg, 1.5 * LN2)
        self.assertEqual(clipfrac, 0.0)

    def test_overlap_subset_and_an_empty_one(self):
        # Student {5, 7}, teacher {7, 9}: S_t = {7}, w = 1, diff = ln .5 - ln .25 = ln 2; L = -ln 2.
        old = [math.log(0.5), math.log(0.25)]
        pg, _, _, valid = opd_token_loss([5, 7], old, old, [7, 9], [math.log(0.5), math.log(0.1)], 0.2, 0.28, 2.0)
        self.assertTrue(valid)
        self.assertAlmostEqual(pg, -LN2)
        self.assertEqual(opd_token_loss([5, 7], old, old, [8, 9], [-1.0, -2.0], 0.2, 0.28, 2.0), (0.0, 0.0, 0.0, False))

    def test_identical_teacher_gives_zero(self):
        old = [math.log(0.7), math.log(0.2)]
        self.assertAlmostEqual(opd_token_loss([1, 2], old, old, [1, 2], old, 0.2, 0.28, 2.0)[0], 0.0)

    def test_knobs_follow_upstream(self):
        self.assertEqual(knobs({}), {"w_rl": 1.0, "w_opd": 1.0, "diff_clip": 2.0})
        self.assertEqual(knobs({"OPENCLAW_TOPK_ADV_DIFF_CLIP": "0", "OPENCLAW_TOPK_W_RL": "0"})["diff_clip"], None)
        self.assertEqual(knobs({"OPENCLAW_TOPK_ADV_DIFF_CLIP": "1"})["diff_clip"], 1.0)


@unittest.skipIf(importlib.util.find_spec("torch") is None, "needs torch (Debian's python3-torch: /usr/bin/python3)")
class TopKTorchKernelTest(unittest.TestCase):
    """The torch kernel (upstream's _opd_one_sample with its TP-aware gather and log-sum-exp, TP world 1 on CPU)
    against the pure-Python twin, and its custom backward against plain autograd."""

    @staticmethod
    def policy_loss(ppo_kl, adv, eps_lo, eps_hi):
        # slime's compute_policy_loss (slime/utils/ppo_utils.py @f48ac35) without the dual clip.
        import torch

        ratio = (-ppo_kl).exp()
        pg1, pg2 = -ratio * adv, -ratio.clamp(1 - eps_lo, 1 + eps_hi) * adv
        return torch.maximum(pg1, pg2), torch.gt(pg2, pg1).float()

    def cases(self):
        import torch

        g = torch.Generator().manual_seed(0)
        rows, vocab, k = 6, 13, 4
        old_logits = torch.randn(rows, vocab, generator=g)
        logits = old_logits + 0.4 * torch.randn(rows, vocab, generator=g)
        s_lp, s_idx = torch.log_softmax(old_logits, -1).topk(k, -1)
        teacher_all = torch.log_softmax(2 * torch.randn(rows, vocab, generator=g), -1)
        # student subset: the teacher gathered at the student's ids; overlap: the teacher's own top-K.
        t_top_lp, t_top_idx = teacher_all.topk(k, -1)
        return logits, s_idx, s_lp, [(s_idx, teacher_all.gather(-1, s_idx)), (t_top_idx, t_top_lp)]

    def run_kernel(self, logits, s_idx, s_lp, t_idx, t_lp, clip=1.0):
        return topk.opd_one_sample(
            logits, student_indices=s_idx, student_old_lp=s_lp, teacher_indices=t_idx, teacher_lp=t_lp,
            eps_lo=0.2, eps_hi=0.28, diff_clip=clip, tp_group=None, policy_loss=self.policy_loss,
        )

    def test_matches_the_pure_python_twin(self):
        import torch

        logits, s_idx, s_lp, subsets = self.cases()
        cur = torch.log_softmax(logits, -1).gather(-1, s_idx)
        for t_idx, t_lp in subsets:
            for clip in (1.0, None):
                pg, clipfrac, diff, valid = self.run_kernel(logits, s_idx, s_lp, t_idx, t_lp, clip)
                for r in range(s_idx.size(0)):
                    want = opd_token_loss(s_idx[r].tolist(), s_lp[r].tolist(), cur[r].tolist(), t_idx[r].tolist(), t_lp[r].tolist(), 0.2, 0.28, clip)
                    self.assertAlmostEqual(float(pg[r]), want[0], places=5)
                    self.assertAlmostEqual(float(clipfrac[r]), want[1], places=5)
                    self.assertAlmostEqual(float(diff[r]), want[2], places=5)
                    self.assertEqual(bool(valid[r]), want[3])
        self.assertTrue(float(clipfrac.sum()) > 0)  # the PPO clip is exercised

    def test_custom_backward_equals_plain_autograd(self):
        import torch

        logits, s_idx, s_lp, subsets = self.cases()
        for t_idx, t_lp in subsets:
            a = logits.clone().requires_grad_(True)
            self.run_kernel(a, s_idx, s_lp, t_idx, t_lp)[0].sum().backward()
            plain = lambda x, idx, _group: torch.log_softmax(x.float(), -1).gather(-1, idx)  # noqa: E731
            original = topk._tp_functions
            topk._tp_functions = lambda: (torch, plain)
            try:
                b = logits.clone().requires_grad_(True)
                self.run_kernel(b, s_idx, s_lp, t_idx, t_lp)[0].sum().backward()
            finally:
                topk._tp_functions = original
            self.assertGreater(float(a.grad.abs().sum()), 0)
            self.assertTrue(torch.allclose(a.grad, b.grad, atol=1e-6), (a.grad - b.grad).abs().max())


def _extracted_signature(spec):
    """An inspect.Signature with the parameters the fork's function really has (sample-contract.json)."""
    import inspect

    P = inspect.Parameter
    required_pos = spec["positional_required"]
    params = [P(n, P.POSITIONAL_OR_KEYWORD, **({} if i < required_pos else {"default": None})) for i, n in enumerate(spec["positional"])]
    params += [P(n, P.KEYWORD_ONLY, **({} if n in spec["keyword_only_required"] else {"default": None})) for n in spec["keyword_only"]]
    return inspect.Signature(params)


@unittest.skipIf(importlib.util.find_spec("torch") is None, "needs torch (Debian's python3-torch: /usr/bin/python3)")
class TopKEntryTest(unittest.TestCase):
    """topk_opd_loss_function end to end on CPU, with stand-ins for the slime/Megatron functions it calls that
    accept exactly the parameters the fork's functions have (extracted) and return what they return."""

    def setUp(self):
        import types

        import torch

        fns = PINNED["topk"]["slime_functions"]
        self.assertEqual(fns["get_log_probs_and_entropy"]["returns"], ["(torch.empty((0,), device=logits.device), res)"])
        self.assertEqual(fns["get_responses"]["yields"], ["(logits_chunk, tokens_chunk)"])
        sig = {name: _extracted_signature(spec) for name, spec in fns.items()}

        def responses(*a, **kw):
            b = sig["get_responses"].bind(*a, **kw).arguments
            offset = 0
            for tokens, total, resp in zip(b["unconcat_tokens"], b["total_lengths"], b["response_lengths"]):
                # Logits at position p predict token p + 1: the response's logits end one before the sample's end.
                yield b["logits"][0, offset + total - resp - 1 : offset + total - 1], tokens[total - resp :]
                offset += total

        def log_probs_and_entropy(*a, **kw):
            b = sig["get_log_probs_and_entropy"].bind(*a, **kw).arguments
            lps, ents = [], []
            for chunk, tokens in responses(b["logits"], args=b["args"], unconcat_tokens=b["unconcat_tokens"], total_lengths=b["total_lengths"], response_lengths=b["response_lengths"]):
                full = torch.log_softmax(chunk.float(), -1)
                lps.append(full.gather(-1, tokens.unsqueeze(-1)).squeeze(-1))
                ents.append(-(full.exp() * full).sum(-1))
            res = {"log_probs": lps, **({"entropy": ents} if b.get("with_entropy") else {})}
            return torch.empty((0,)), res

        def policy_loss(*a, **kw):
            b = sig["compute_policy_loss"].bind(*a, **kw).arguments
            return TopKTorchKernelTest.policy_loss(b["ppo_kl"], b["advantages"], b["eps_clip"], b["eps_clip_high"])

        def approx_kl(*a, **kw):
            b = sig["compute_approx_kl"].bind(*a, **kw).arguments
            return b["log_probs"] - b["log_probs_base"]

        mods = {name: types.ModuleType(name) for name in ("megatron", "megatron.core", "slime", "slime.backends", "slime.backends.megatron_utils", "slime.backends.megatron_utils.loss", "slime.utils", "slime.utils.ppo_utils")}
        mods["megatron.core"].mpu = types.SimpleNamespace(get_tensor_model_parallel_group=lambda: None)
        mods["slime.backends.megatron_utils.loss"].get_responses = responses
        mods["slime.backends.megatron_utils.loss"].get_log_probs_and_entropy = log_probs_and_entropy
        mods["slime.utils.ppo_utils"].compute_policy_loss = policy_loss
        mods["slime.utils.ppo_utils"].compute_approx_kl = approx_kl
        self.saved = {name: sys.modules.get(name) for name in mods}
        sys.modules.update(mods)
        self.env = {k: os.environ.get(k) for k in topk.ENV_DEFAULTS}

    def tearDown(self):
        for name, mod in self.saved.items():
            if mod is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = mod
        for k, v in self.env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def test_the_loss_is_the_kernel_averaged_per_sample(self):
        import argparse

        import torch

        g = torch.Generator().manual_seed(1)
        vocab, k = 11, 3
        totals, resps = [5, 7], [3, 4]
        tokens = [torch.randint(0, vocab, (t,), generator=g) for t in totals]
        logits = torch.randn(1, sum(totals), vocab, generator=g, requires_grad=True)
        old = logits.detach() + 0.3 * torch.randn(1, sum(totals), vocab, generator=g)
        batch = {"unconcat_tokens": tokens, "total_lengths": totals, "response_lengths": resps, "max_seq_lens": None,
                 "log_probs": [], "advantages": [], "topk_log_probs": [], "topk_indices": [],
                 "prm_teacher_topk_log_probs": [], "prm_teacher_topk_indices": [], "ref_log_probs": None}
        offset = 0
        for total, resp in zip(totals, resps):
            old_lp = torch.log_softmax(old[0, offset + total - resp - 1 : offset + total - 1], -1)
            lp, idx = old_lp.topk(k, -1)
            batch["topk_log_probs"].append(lp)
            batch["topk_indices"].append(idx)
            batch["prm_teacher_topk_log_probs"].append(torch.log_softmax(torch.randn(resp, vocab, generator=g), -1).gather(-1, idx))
            batch["prm_teacher_topk_indices"].append(idx)
            offset += total
        args = argparse.Namespace(eps_clip=0.2, eps_clip_high=0.28, entropy_coef=0.0, use_kl_loss=True, kl_loss_coef=0.0, kl_loss_type="low_var_kl", use_rollout_logprobs=False)
        lengths = resps

        def sum_of_sample_mean(x):
            parts = torch.split(x, lengths)
            return sum(p.mean() for p in parts)

        os.environ.update({"OPENCLAW_TOPK_W_RL": "0", "OPENCLAW_TOPK_W_OPD": "1", "OPENCLAW_TOPK_ADV_DIFF_CLIP": "1"})
        loss, metrics = topk.topk_opd_loss_function(args, batch, logits, sum_of_sample_mean)

        want, offset = 0.0, 0
        for i, (total, resp) in enumerate(zip(totals, resps)):
            cur = torch.log_softmax(logits.detach()[0, offset + total - resp - 1 : offset + total - 1], -1)
            idx = batch["topk_indices"][i]
            per = [opd_token_loss(idx[t].tolist(), batch["topk_log_probs"][i][t].tolist(), cur[t].gather(-1, idx[t]).tolist(), idx[t].tolist(), batch["prm_teacher_topk_log_probs"][i][t].tolist(), 0.2, 0.28, 1.0)[0] for t in range(resp)]
            want += sum(per) / resp
            offset += total
        self.assertAlmostEqual(float(loss), want, places=5)
        self.assertAlmostEqual(float(metrics["opd_loss"]), want, places=5)
        self.assertEqual(float(metrics["grpo_pg_loss"]), 0.0)
        loss.backward()
        self.assertGreater(float(logits.grad.abs().sum()), 0)

        # Without the teacher's top-K (no in-job teacher, or advantages not computed) the step stops and says why.
        batch["prm_teacher_topk_log_probs"] = []
        with self.assertRaisesRegex(RuntimeError, "prm_teacher_topk_log_probs"):
            topk.topk_opd_loss_function(args, batch, logits, sum_of_sample_mean)


class TopKContractTest(unittest.TestCase):
    """The loss reads what the fork's batch has, the knobs are upstream's, and the path it needs is the one
    train_async.py takes (each assertion would fail if the extracted source said otherwise)."""

    def test_reads_exactly_the_reference_loss_batch_keys(self):
        ref = PINNED["topk"]["reference_loss"]
        self.assertEqual(list(topk.BATCH_KEYS_READ), ref["batch_keys"])
        train = next(c for c in PINNED["batch_keys"]["calls"] if c["function"] == "train_one_step")
        self.assertEqual([k for k in topk.BATCH_KEYS_READ if k not in train["keys"] and k != "unconcat_tokens"], [])
        for key in topk.TOPK_KEYS:
            self.assertIn(key, train["keys"])
        # The kernel's parameters are upstream's (a renamed or dropped input would show here).
        import inspect

        params = [p.name for p in inspect.signature(topk.opd_one_sample).parameters.values() if p.kind is p.KEYWORD_ONLY]
        self.assertEqual([p for p in params if p != "policy_loss"], ref["kernel"]["keyword_only"])

    def test_env_knobs_are_upstreams(self):
        env = {e["name"]: e["default"] for e in PINNED["topk"]["select_loss"]["env"]}
        for name, default in topk.ENV_DEFAULTS.items():
            self.assertIn(name, env)
            # Upstream's empty diff-clip default means 2.0 (its _adv_diff_clip); the weights' defaults are literal.
            self.assertEqual(env[name] or "2.0", default)

    def test_the_path_that_fills_those_keys(self):
        t = PINNED["topk"]
        self.assertEqual(t["dispatch"]["gather_under"], ["prm_teacher_model is not None", "distill_topk > 0 and subset_mode == 'student'"])
        self.assertEqual(t["dispatch"]["names"]["subset_mode"], "getattr(args, 'distill_subset_mode', 'student')")
        self.assertEqual(t["actor"]["teacher_payload_under"][0], "self.args.compute_advantages_and_returns")
        self.assertFalse(t["colocated_script"]["has_teacher_gather"])
        # The previous pin had none of it.
        self.assertIsNone(sample_contract()["commits"][0]["topk"])

    def test_missing_keys_are_named(self):
        self.assertEqual(topk.missing_topk_keys({"topk_log_probs": [1], "topk_indices": [1]}), ["prm_teacher_topk_log_probs", "prm_teacher_topk_indices"])


if __name__ == "__main__":
    unittest.main()
