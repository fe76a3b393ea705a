import unittest

from integrations.slime.convert import fit, normalize_messages, sample_fields
from fakes import CharTokenizer

TOK = CharTokenizer()


def leased(**over):
    base = {
        "sampleId": "s1", "turnId": "t1", "sessionId": "sess", "kind": "RL", "reward": 1, "labelSource": "JUDGE",
        "attempt": 1, "messages": [{"role": "user", "content": "hi"}], "tools": None,
        "response": {"content": "ok", "toolCalls": None}, "responseTokenIds": [7, 8, 9], "lossMask": [1, 1, 1],
        "rolloutLogprobs": [-0.5, -0.25, -0.125], "teacherLogprobs": None, "policyVersion": 3, "staleness": 1,
    }
    base.update(over)
    return base


class ConvertTest(unittest.TestCase):
    def test_prompt_is_rendered_with_the_policy_template_and_recorded_response_ids_are_kept(self):
        f = sample_fields(leased(), TOK, "grpo", index=4)
        prompt = "<|user|>hi\n<|assistant|>"
        self.assertEqual(f["prompt"], prompt)
        self.assertEqual(f["tokens"], [ord(c) for c in prompt] + [7, 8, 9])
        self.assertEqual(f["response_length"], 3)
        self.assertEqual(f["loss_mask"], [1, 1, 1])
        self.assertEqual(f["rollout_log_probs"], [-0.5, -0.25, -0.125])
        self.assertNotIn("teacher_log_probs", f)  # not a Sample field: a GRPO batch must not carry it
        self.assertEqual(f["reward"], 1.0)
        self.assertIsInstance(f["reward"], float)
        self.assertEqual((f["index"], f["group_index"]), (4, 4))
        self.assertEqual(f["weight_versions"], ["3"])
        self.assertEqual(f["metadata"]["sample_id"], "s1")

    def test_without_recorded_ids_the_response_is_the_full_render_minus_the_prompt(self):
        f = sample_fields(leased(responseTokenIds=[], lossMask=[], rolloutLogprobs=[-1.0]), TOK, "grpo", index=0)
        response = "<|assistant|>ok\n"[len("<|assistant|>"):]
        self.assertEqual(f["response"], response)
        self.assertEqual(f["response_length"], len(response))
        self.assertEqual(f["tokens"][-len(response):], [ord(c) for c in response])
        # Log-probs are cut or zero-padded to the response, as the reference does.
        self.assertEqual(f["rollout_log_probs"], [-1.0] + [0.0] * (len(response) - 1))
        self.assertEqual(f["loss_mask"], [1] * len(response))

    def test_teacher_log_probs_by_method_and_kind(self):
        opd = leased(kind="OPD", reward=0, teacherLogprobs=[-0.1, -0.2, -0.3])
        self.assertEqual(sample_fields(opd, TOK, "opd", 0)["teacher_log_probs"], [-0.1, -0.2, -0.3])
        # Combine: an RL-only sample distils towards its own behaviour log-probs (OPD term ~0).
        self.assertEqual(sample_fields(leased(), TOK, "combine", 0)["teacher_log_probs"], [-0.5, -0.25, -0.125])
        # OPD sample whose hint has no teacher log-probs yet: nothing to distil, no token trains.
        unscored = sample_fields(leased(kind="OPD", teacherLogprobs=None), TOK, "opd", 0)
        self.assertEqual(unscored["loss_mask"], [0, 0, 0])

    def test_messages_are_normalized_like_the_reference_proxy(self):
        msgs = normalize_messages([{"role": "developer", "content": "sys"}, {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url"}, {"type": "text", "text": "b"}]}])
        self.assertEqual(msgs, [{"role": "system", "content": "sys"}, {"role": "user", "content": "a b"}])

    def test_fit(self):
        self.assertEqual(fit([1, 2, 3], 2), [1.0, 2.0])
        self.assertEqual(fit([1], 3, pad=9), [1.0, 9.0, 9.0])
        self.assertEqual(fit(None, 2), [0.0, 0.0])


if __name__ == "__main__":
    unittest.main()
