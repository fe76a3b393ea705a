"""The top-K OPD loss (upstream's _opd_one_sample, PRs #99/#109) on tiny cases computed by hand, and its inputs
against what the fork at the pinned commit really puts in the batch (tests/fixtures/slime/sample-contract.json)."""

import math
import os
import subprocess
import sys
import unittest

import integrations.slime.topk_loss as topk
from fakes import sample_contract
from integrations.slime.topk_loss import knobs, opd_token_loss, overlap_counts, select_k_star

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


class HintCandidateSelectionTest(unittest.TestCase):
    """Upstream's k*(t) (openclaw_topk_select_loss.py with hint_opd_select_loss.py's helpers), by hand."""

    # Student top-2 per token, and two candidates' native top-2: O[k][t] = |S^q_t ∩ S^p_{t,k}|.
    STUDENT = [[1, 2], [3, 4]]
    NATIVE = [[[1, 2], [8, 9]], [[1, 9], [3, 4]]]

    def test_overlap_counts(self):
        self.assertEqual(overlap_counts(self.STUDENT, self.NATIVE), [[2, 0], [1, 2]])

    def test_each_selection_mode(self):
        o = overlap_counts(self.STUDENT, self.NATIVE)
        self.assertEqual(select_k_star(o, "shortest", 2), [0, 0])
        self.assertEqual(select_k_star(o, "token_optimal", 2), [0, 1])
        # Sums 2 vs 3: candidate 1 for the whole response (one PRM step per sample in OpenClaw's combine).
        self.assertEqual(select_k_star(o, "sequence_optimal", 2), [1, 1])
        # With step spans, per span.
        self.assertEqual(select_k_star(o, "sequence_optimal", 2, [[0, 1], [1, 2]]), [0, 1])
        # Ties go to the shorter hint (candidate 0), as torch's argmax takes the first maximum.
        self.assertEqual(select_k_star([[1, 1], [1, 1]], "token_optimal", 2), [0, 0])
        self.assertEqual(select_k_star([[1, 1]], "sequence_optimal", 2), [0, 0])
        with self.assertRaises(ValueError):
            select_k_star(o, "longest", 2)

    def test_the_hybrid_token_loss_takes_the_selected_candidate(self):
        # Token 1, token_optimal: k* = 1. Candidate 1's log-probs at the student's ids {3, 4}: ln .5, ln .25;
        # old ln .25, ln .5 (w = 1/3, 2/3): diff (+ln 2, -ln 2), A = (ln2/3, -2 ln2/3); L = -ln2/3 + 2ln2/3 = ln2/3.
        old = [math.log(0.25), math.log(0.5)]
        cand_lp = [[math.log(0.5), math.log(0.5)], [math.log(0.5), math.log(0.25)]]
        k = select_k_star(overlap_counts(self.STUDENT, self.NATIVE), "token_optimal", 2)[1]
        pg = opd_token_loss([3, 4], old, old, [3, 4], cand_lp[k], 0.2, 0.28, 1.0)[0]
        self.assertAlmostEqual(pg, LN2 / 3)
        # Candidate 0 instead (shortest) gives the opposite sign on the first id: L = -(ln2·1/3) + 0 = -ln2/3.
        self.assertAlmostEqual(opd_token_loss([3, 4], old, old, [3, 4], cand_lp[0], 0.2, 0.28, 1.0)[0], -LN2 / 3)


class TopKContractTest(unittest.TestCase):
    """The loss reads what the fork's batch has, the knobs are upstream's, and the path it needs is the one
    train_async.py takes (each assertion would fail if the extracted source said otherwise)."""

    def test_reads_only_keys_the_reference_loss_reads(self):
        import ast
        import inspect

        from integrations.contracts.extract_slime_sample import _function, batch_reads

        ref = PINNED["topk"]["reference_loss"]
        hybrid = PINNED["hybrid"]["loss"]
        self.assertEqual([k for k in topk.BATCH_KEYS_READ if k not in ref["batch_keys"] + hybrid["batch_keys"]], [])
        # What the entry function really reads (the same ast reader as the extraction; the top-K keys are read
        # in missing_topk_keys' loop too, the native top-K through its constant) is what it declares.
        read = batch_reads(_function(ast.parse(inspect.getsource(topk)), "topk_opd_loss_function"))
        self.assertEqual(set(read) | set(topk.TOPK_KEYS) | set(topk.CAND_KEYS) | {topk.NATIVE_CAND_KEY}, set(topk.BATCH_KEYS_READ))
        train = next(c for c in PINNED["batch_keys"]["calls"] if c["function"] == "train_one_step")
        self.assertEqual([k for k in topk.BATCH_KEYS_READ if k not in train["keys"] and k != "unconcat_tokens"], [])
        for key in topk.TOPK_KEYS:
            self.assertIn(key, train["keys"])
        # The kernel's parameters are upstream's (a renamed or dropped input would show here).
        import inspect

        params = [p.name for p in inspect.signature(topk.opd_one_sample).parameters.values() if p.kind is p.KEYWORD_ONLY]
        self.assertEqual([p for p in params if p != "policy_loss"], ref["kernel"]["keyword_only"])

    def test_the_hybrid_inputs_are_upstreams(self):
        hybrid = PINNED["hybrid"]
        # The *_cand keys are the ones the actor's multi-candidate gather emits.
        self.assertEqual(set(topk.CAND_KEYS[2:]) | {topk.NATIVE_CAND_KEY}, set(hybrid["actor"]["cand_keys"].values()))
        # --hint-selection: what the select loss reads, with its default, and the fork's choices.
        reads = {a["name"]: a["default"] for a in hybrid["loss"]["args"]}
        self.assertEqual(reads["hint_selection"], "shortest")
        self.assertEqual(reads["distill_subset_mode"], "student")
        self.assertEqual(set(hybrid["loss"]["imports"]), {"hint_opd_loss._opd_one_sample", "hint_opd_select_loss._gather_along_K", "hint_opd_select_loss._overlap_count_per_token", "hint_opd_select_loss._select_k_star_per_token"})
        self.assertEqual(hybrid["loss"]["helpers"]["_select_k_star_per_token"]["keyword_only"], ["hint_selection", "step_token_spans", "R", "device"])
        # The previous pin had no multi-candidate path.
        self.assertIsNone(sample_contract()["commits"][0]["hybrid"])
        # A sample with fewer candidates than K_max is run on them cyclically.
        self.assertEqual(hybrid["actor"]["candidate_at_pass_k"], "k % K_per_sample[i]")
        import json

        with open(os.path.join(ROOT, "tests", "fixtures", "slime", "openclaw-rl-fork.json"), encoding="utf-8") as f:
            fork = json.load(f)

        def flag(name):
            stack = [fork]
            while stack:
                o = stack.pop()
                if isinstance(o, dict):
                    if name in (o.get("option_strings") or []):
                        return o
                    stack.extend(o.values())
                elif isinstance(o, list):
                    stack.extend(o)

        self.assertEqual(tuple(flag("--hint-selection")["choices"]), topk.HINT_SELECTIONS)
        # The launcher runs it asynchronously, on the student subset, GRPO and OPD both on, with the diff clip 1.0.
        launcher = hybrid["launcher"]
        self.assertEqual(launcher["script"], "train_async.py")
        self.assertEqual({k: launcher["env"][k] for k in ("OPENCLAW_TOPK_W_RL", "OPENCLAW_TOPK_W_OPD", "OPENCLAW_TOPK_ADV_DIFF_CLIP", "OPENCLAW_TOPK_SUBSET_MODE")}, {"OPENCLAW_TOPK_W_RL": "1.0", "OPENCLAW_TOPK_W_OPD": "1.0", "OPENCLAW_TOPK_ADV_DIFF_CLIP": "1.0", "OPENCLAW_TOPK_SUBSET_MODE": "student"})

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
