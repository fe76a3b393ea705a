"""The samples the rollout function returns, against the fork's ``Sample`` contract extracted from its source
(tests/fixtures/slime/sample-contract.json, at the pinned and the latest commit): the stand-in class is built
from the extracted fields, and ``train_data`` does what the fork's RolloutManager and Megatron actor do with them."""

import unittest

from integrations.slime.rollout import make_samples
from fakes import SAMPLE_CLASSES, CharTokenizer, sample_contract, train_data

COMMITS = sample_contract()["commits"]


def leased(i, kind="RL", teacher=None, hint=None):
    return {"hint": hint,
        "sampleId": f"s{i}", "turnId": f"t{i}", "sessionId": "sess", "kind": kind, "reward": 1 if i % 2 else 0,
        "labelSource": "JUDGE", "attempt": 1, "messages": [{"role": "user", "content": f"q{i}"}], "tools": None,
        "response": {"content": "ok", "toolCalls": None}, "responseTokenIds": [7, 8, 9], "lossMask": [1, 1, 1],
        "rolloutLogprobs": [-0.5, -0.25, -0.125], "teacherLogprobs": teacher, "policyVersion": 3, "staleness": 1,
    }


class SampleContractTest(unittest.TestCase):
    def test_the_stand_in_has_exactly_the_extracted_fields(self):
        for cls, commit in zip(SAMPLE_CLASSES, COMMITS):
            self.assertEqual(list(cls.__dataclass_fields__), [f["name"] for f in commit["sample"]["fields"]])
            self.assertNotIn("teacher_log_probs", cls.__dataclass_fields__)
            with self.assertRaises(AttributeError):
                cls().session_id = "x"

    def test_every_method_ships_a_batch_the_megatron_actor_accepts(self):
        batches = {
            "grpo": [leased(i) for i in range(16)],
            "opd": [leased(i, "OPD", [-0.1, -0.2, -0.3]) for i in range(8)] + [leased(8, "OPD")],
            "combine": [leased(i) for i in range(4)] + [leased(4, "OPD", [-0.1, -0.2, -0.3]), leased(5, "OPD")],
        }
        for cls, commit in zip(SAMPLE_CLASSES, COMMITS):
            for method, items in batches.items():
                with self.subTest(commit=commit["commit"][:7], method=method):
                    samples = make_samples(cls, items, CharTokenizer(), method, first_index=0)
                    data = train_data(samples, commit)
                    self.assertEqual(len(data["tokens"]), len(items))
                    if method == "grpo":
                        self.assertNotIn("teacher_log_probs", data)
                    else:
                        self.assertEqual([len(t) for t in data["teacher_log_probs"]], data["response_lengths"])
                    self.assertEqual(samples[0].status, cls.Status.COMPLETED)
                    self.assertEqual(samples[0].metadata["session_id"], "sess")

    def test_combine_with_the_in_job_teacher_ships_teacher_tokens_for_every_sample(self):
        """The 4-way split (PR #85): the fork ships ``teacher_tokens`` only from f48ac35 on; the hinted sample's
        teacher context is the hinted prompt, every other sample's its own tokens, each ending in the response."""
        items = [leased(0), leased(1, "OPD", None, "Answer with the city name only.")]
        pinned = COMMITS[-1]  # f48ac35, the default pin
        cls = SAMPLE_CLASSES[-1]
        samples = make_samples(cls, items, CharTokenizer(), "combine", first_index=0, teacher_source="megatron")
        data = train_data(samples, pinned)
        self.assertEqual(data["teacher_tokens"][0], samples[0].tokens)
        hinted = "".join(chr(t) for t in data["teacher_tokens"][1])
        self.assertIn("Answer with the city name only.", hinted)
        self.assertEqual(data["teacher_tokens"][1][-3:], [7, 8, 9])
        # The pinned commit before the 4-way split has no such attribute: its stand-in refuses it.
        with self.assertRaises(AttributeError):
            make_samples(SAMPLE_CLASSES[0], items, CharTokenizer(), "combine", first_index=0, teacher_source="megatron")

    def test_topk_ships_teacher_tokens_and_no_shipped_teacher(self):
        """Top-K OPD: the in-job teacher gathers at the student's top-K over ``teacher_tokens`` (the fork ships the
        attribute with ``teacher_total_lengths``); no sample carries log-probs of its own, and one without a
        hint trains no token."""
        items = [leased(0, "OPD", None, "Say it in one word."), leased(1, "OPD")]
        samples = make_samples(SAMPLE_CLASSES[-1], items, CharTokenizer(), "topk", first_index=0)
        data = train_data(samples, COMMITS[-1])
        self.assertNotIn("teacher_log_probs", data)
        self.assertEqual(len(data["teacher_tokens"]), 2)
        self.assertIn("Say it in one word.", "".join(chr(t) for t in data["teacher_tokens"][0]))
        self.assertEqual(data["loss_masks"], [[1, 1, 1], [0, 0, 0]])
        self.assertEqual(data["teacher_tokens"][1], samples[1].tokens)
        with self.assertRaises(AttributeError):
            make_samples(SAMPLE_CLASSES[0], items, CharTokenizer(), "topk", first_index=0)

    def test_the_hybrid_ships_one_teacher_sequence_per_hint_candidate(self):
        """Combine with the topk estimator (upstream's select rollout, sample-contract.json ``hybrid.rollout``): every
        sample carries ``teacher_tokens_candidates``, one hinted sequence per accepted hint (the judge's candidates,
        shortest first, at most OPENCLAW_TOPK_MAX_CAND), or its own tokens when it has none; ``teacher_tokens`` is
        candidate 0. The fork's actor takes the multi-candidate branch when the batch carries them."""
        hybrid = COMMITS[-1]["hybrid"]
        self.assertEqual(hybrid["actor"]["multi_cand_under"], ["teacher_tokens_cand is not None and len(teacher_tokens_cand) > 0"])
        self.assertEqual(hybrid["rollout"]["env"][0]["name"], "OPENCLAW_TOPK_MAX_CAND")
        cands = ["Be brief please.", "Answer with the city name only.", "Answer with the city name and nothing else."]
        items = [leased(0), {**leased(1, "OPD", None, cands[0]), "hintCandidates": cands}, leased(2, "OPD", None, "Say it in one word.")]
        samples = make_samples(SAMPLE_CLASSES[-1], items, CharTokenizer(), "combine", first_index=0, teacher_source="megatron", max_cand=2)
        data = train_data(samples, COMMITS[-1])
        text = lambda ids: "".join(chr(t) for t in ids)  # noqa: E731
        self.assertEqual([len(c) for c in data["teacher_tokens_candidates"]], [1, 2, 1])
        self.assertEqual(data["teacher_tokens_candidates"][0], [samples[0].tokens])
        self.assertIn(cands[0], text(data["teacher_tokens_candidates"][1][0]))
        self.assertIn(cands[1], text(data["teacher_tokens_candidates"][1][1]))
        self.assertIn("Say it in one word.", text(data["teacher_tokens_candidates"][2][0]))
        for c, t in zip(data["teacher_tokens_candidates"], data["teacher_tokens"]):
            self.assertEqual(c[0], t)
            self.assertTrue(all(seq[-3:] == [7, 8, 9] for seq in c))
        # Every attribute upstream's select rollout sets, and nothing the fork's Sample would refuse.
        ours = set(samples[1].__dict__)
        self.assertEqual({"teacher_tokens_candidates", "teacher_tokens"} - ours, set())
        self.assertEqual([a for a in hybrid["rollout"]["turn_sample_sets"] if a not in ours and a not in ("status", "teacher_log_probs")], [])
        # Without the cap (method combine on the sampled estimator) no sample carries candidates.
        plain = make_samples(SAMPLE_CLASSES[-1], items, CharTokenizer(), "combine", first_index=0, teacher_source="megatron")
        self.assertNotIn("teacher_tokens_candidates", train_data(plain, COMMITS[-1]))
        # The pinned commit before top-K has no such attribute.
        with self.assertRaises(AttributeError):
            make_samples(SAMPLE_CLASSES[0], items, CharTokenizer(), "combine", first_index=0, teacher_source="megatron", max_cand=2)

    def test_the_combine_loss_reads_only_keys_the_fork_batches(self):
        from integrations.slime.combine_loss import BATCH_KEYS_READ, GET_BATCH_ADDS

        train = next(c for c in COMMITS[-1]["batch_keys"]["calls"] if c["function"] == "train_one_step")
        self.assertEqual([k for k in BATCH_KEYS_READ if k not in train["keys"]], [])
        self.assertEqual([k for k in GET_BATCH_ADDS if k in train["keys"]], [])
        # Before the 4-way split the batch had no in-job teacher's log-probs.
        before = next(c for c in COMMITS[0]["batch_keys"]["calls"] if c["function"] == "train_one_step")
        self.assertNotIn("prm_teacher_log_probs", before["keys"])


    def test_the_hooks_accept_the_calls_slime_makes(self):
        """The rollout function and the custom losses bind to the calls extracted from the fork's source."""
        import inspect

        from integrations.slime.combine_loss import combine_loss_function
        from integrations.slime.rollout import generate_rollout
        from integrations.slime.topk_loss import topk_opd_loss_function

        for commit in COMMITS:
            for call in commit["hooks"]["rollout"]["calls"]:
                inspect.signature(generate_rollout).bind(*[None] * call["positional"], **{k: False for k in call["keywords"]})
            self.assertTrue(commit["hooks"]["custom_loss"]["calls"])
            for call in commit["hooks"]["custom_loss"]["calls"]:
                for loss in (combine_loss_function, topk_opd_loss_function):
                    inspect.signature(loss).bind(*[None] * call["positional"], **{k: None for k in call["keywords"]})
        # The check binds for real: a hook taking one argument fewer is refused.
        with self.assertRaises(TypeError):
            inspect.signature(lambda args, batch, logits: None).bind(*[None] * 4)


if __name__ == "__main__":
    unittest.main()
