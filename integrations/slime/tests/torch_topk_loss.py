"""The top-K OPD loss's torch path, on CPU with TP world 1: needs an interpreter with torch (Debian's python3-torch,
/usr/bin/python3), so it is named torch_*.py, out of the default ``test*.py`` discovery;
tests/unit/runs/backends/slimePython.test.ts runs it where such an interpreter exists."""

import os
import sys
import unittest

import integrations.slime.topk_loss as topk
from fakes import sample_contract
from integrations.slime.topk_loss import opd_token_loss, overlap_counts, select_k_star

PINNED = sample_contract()["commits"][-1]


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


class CandidateSelectionTorchTest(unittest.TestCase):
    """candidate_teacher (upstream's overlap count, k* selection and gather along K, in torch) against the
    pure-Python twin, on random candidates: the picked log-probs are candidate k*(t)'s at every token."""

    def test_matches_the_pure_python_twin(self):
        import torch

        g = torch.Generator().manual_seed(2)
        rows, vocab, k, n_cand = 9, 7, 3, 3
        s_idx = torch.stack([torch.randperm(vocab, generator=g)[:k] for _ in range(rows)])
        native = torch.stack([torch.stack([torch.randperm(vocab, generator=g)[:k] for _ in range(rows)]) for _ in range(n_cand)])
        cand_lp = torch.randn(n_cand, rows, k, generator=g)
        overlap = overlap_counts(s_idx.tolist(), native.tolist())
        seen = set()
        for mode in ("shortest", "token_optimal", "sequence_optimal"):
            for spans in (None, [[0, 4], [4, 9]]):
                picked, k_star = topk.candidate_teacher(s_idx, cand_lp, native, mode, spans)
                want = select_k_star(overlap, mode, rows, spans)
                self.assertEqual(k_star.tolist(), want, (mode, spans))
                for t in range(rows):
                    self.assertTrue(torch.equal(picked[t], cand_lp[want[t], t]))
                seen.add(tuple(want))
        self.assertGreater(len(seen), 2)  # the modes really pick differently on this case
        # One candidate (an RL-only sample, or the judge's one hint): k* = 0 in every mode.
        picked, k_star = topk.candidate_teacher(s_idx, cand_lp[:1], native[:1], "token_optimal")
        self.assertEqual(k_star.tolist(), [0] * rows)


def _extracted_signature(spec):
    """An inspect.Signature with the parameters the fork's function really has (sample-contract.json)."""
    import inspect

    P = inspect.Parameter
    required_pos = spec["positional_required"]
    params = [P(n, P.POSITIONAL_OR_KEYWORD, **({} if i < required_pos else {"default": None})) for i, n in enumerate(spec["positional"])]
    params += [P(n, P.KEYWORD_ONLY, **({} if n in spec["keyword_only_required"] else {"default": None})) for n in spec["keyword_only"]]
    return inspect.Signature(params)


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

    def test_the_hybrid_is_grpo_plus_the_selected_candidates_opd(self):
        # Method combine with the topk estimator: w_rl x GRPO on the sampled tokens + w_opd x top-K OPD on candidate
        # k*(t)'s log-probs (the batch's *_cand keys, one teacher pass per hint candidate).
        import argparse

        import torch

        g = torch.Generator().manual_seed(3)
        vocab, k, n_cand = 11, 3, 2
        totals, resps = [6, 5], [4, 3]
        tokens = [torch.randint(0, vocab, (t,), generator=g) for t in totals]
        logits = torch.randn(1, sum(totals), vocab, generator=g, requires_grad=True)
        old = logits.detach() + 0.3 * torch.randn(1, sum(totals), vocab, generator=g)
        batch = {"unconcat_tokens": tokens, "total_lengths": totals, "response_lengths": resps, "max_seq_lens": None,
                 "log_probs": [], "advantages": [], "topk_log_probs": [], "topk_indices": [],
                 "prm_teacher_topk_log_probs_cand": [], "prm_teacher_topk_indices_cand": [],
                 "prm_teacher_native_topk_indices_cand": [], "ref_log_probs": None}
        offset = 0
        for i, (total, resp) in enumerate(zip(totals, resps)):
            old_lp = torch.log_softmax(old[0, offset + total - resp - 1 : offset + total - 1], -1)
            lp, idx = old_lp.topk(k, -1)
            batch["topk_log_probs"].append(lp)
            batch["topk_indices"].append(idx)
            batch["log_probs"].append(old_lp.gather(-1, tokens[i][total - resp :].unsqueeze(-1)).squeeze(-1))
            batch["advantages"].append(torch.full((resp,), 1.0 if i == 0 else -1.0))
            teachers = torch.log_softmax(2 * torch.randn(n_cand, resp, vocab, generator=g), -1)
            batch["prm_teacher_topk_log_probs_cand"].append(teachers.gather(-1, idx.expand(n_cand, resp, k)))
            batch["prm_teacher_topk_indices_cand"].append(idx.expand(n_cand, resp, k).clone())
            batch["prm_teacher_native_topk_indices_cand"].append(teachers.topk(k, -1).indices)
            offset += total
        args = argparse.Namespace(eps_clip=0.2, eps_clip_high=0.28, entropy_coef=0.0, use_kl_loss=True, kl_loss_coef=0.0,
                                  kl_loss_type="low_var_kl", use_rollout_logprobs=False, hint_selection="token_optimal")

        def sum_of_sample_mean(x):
            return sum(p.mean() for p in torch.split(x, resps))

        os.environ.update({"OPENCLAW_TOPK_W_RL": "1", "OPENCLAW_TOPK_W_OPD": "1", "OPENCLAW_TOPK_ADV_DIFF_CLIP": "1"})
        loss, metrics = topk.topk_opd_loss_function(args, batch, logits, sum_of_sample_mean)

        want_opd = want_rl = 0.0
        offset = 0
        for i, (total, resp) in enumerate(zip(totals, resps)):
            cur = torch.log_softmax(logits.detach()[0, offset + total - resp - 1 : offset + total - 1], -1)
            idx = batch["topk_indices"][i]
            k_star = select_k_star(overlap_counts(idx.tolist(), batch["prm_teacher_native_topk_indices_cand"][i].tolist()), "token_optimal", resp)
            per = [opd_token_loss(idx[t].tolist(), batch["topk_log_probs"][i][t].tolist(), cur[t].gather(-1, idx[t]).tolist(), idx[t].tolist(), batch["prm_teacher_topk_log_probs_cand"][i][k_star[t], t].tolist(), 0.2, 0.28, 1.0)[0] for t in range(resp)]
            want_opd += sum(per) / resp
            sampled = cur.gather(-1, tokens[i][total - resp :].unsqueeze(-1)).squeeze(-1)
            ratio = (sampled - batch["log_probs"][i]).exp()
            adv = batch["advantages"][i]
            want_rl += float(torch.maximum(-ratio * adv, -ratio.clamp(0.8, 1.28) * adv).mean())
            offset += total
        self.assertAlmostEqual(float(metrics["opd_loss"]), want_opd, places=5)
        self.assertAlmostEqual(float(metrics["grpo_pg_loss"]), want_rl, places=5)
        self.assertAlmostEqual(float(loss), want_rl + want_opd, places=5)
        loss.backward()
        self.assertGreater(float(logits.grad.abs().sum()), 0)

        # token_optimal without the candidates' native top-K (the selection signal) stops and says why.
        batch["prm_teacher_native_topk_indices_cand"] = []
        with self.assertRaisesRegex(RuntimeError, "prm_teacher_native_topk_indices_cand"):
            topk.topk_opd_loss_function(args, batch, logits, sum_of_sample_mean)


if __name__ == "__main__":
    unittest.main()
