"""Per-user adapters on Tinker (per_user.py) against the fake SDK rebuilt from its source (fake_tinker.py): one LoRA
training client per user on one shared base, each user's samples only on their own client, a sampler per user
answering from that user's weights, the base's sampler for a user without any."""

import os
import sys
import unittest

from integrations.tinker import bridge
from integrations.tinker.per_user import PerUserTinker, group_by_user, user_sampler_name
from fake_tinker import ModelInput, make_module

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "slime", "tests"))
from fakes import CharTokenizer  # noqa: E402

BASE = "Qwen/Qwen3-4B-Instruct-2507"


def leased(i, user, content="ab"):
    return {
        "sampleId": f"s{i}", "turnId": f"t{i}", "endUserId": user, "kind": "RL", "reward": 1.0,
        "messages": [{"role": "user", "content": f"q{i}"}], "tools": None, "response": {"content": content},
        "responseTokenIds": [ord(c) for c in content], "lossMask": [1] * len(content),
        "rolloutLogprobs": [-1.0] * len(content), "teacherLogprobs": None, "policyVersion": 0, "staleness": 0, "attempt": 1,
    }


def answer(sampler, tokenizer):
    module, _ = make_module(tokenizer)
    out = sampler.sample(ModelInput.from_ints([1, 2]), 1, module.types.SamplingParams(max_tokens=200)).result()
    return tokenizer.decode(out.sequences[0].tokens)


class PerUserTinkerTest(unittest.TestCase):
    def setUp(self):
        self.tokenizer = CharTokenizer()
        self.module, self.service = make_module(self.tokenizer)
        cfg = bridge.BridgeConfig(base_model=BASE, lora_rank=8, learning_rate=1e-5, loss="importance_sampling", method="grpo")
        self.users = PerUserTinker(self.module, cfg, "run-7")

    def test_one_training_client_per_user_on_the_shared_base_and_only_their_samples_on_it(self):
        paths = self.users.train([leased(0, "maya", "Short."), leased(1, "leo", "- a\n- b"), leased(2, "maya", "Ok.")])
        # Two LoRA clients, both on the one base at the experiment's rank.
        self.assertEqual(self.service.created, [(BASE, 8), (BASE, 8)])
        maya_id = self.users.training_client("maya").model_id
        leo_id = self.users.training_client("leo").model_id
        self.assertNotEqual(maya_id, leo_id)
        steps = [c for c in self.service.calls if c[0] == "forward_backward"]
        by_client = {c[3]: c[2] for c in steps}
        # Each datum's prompt is its sample's question: Maya's client saw q0 and q2, Leo's saw q1 and nothing else.
        def prompts(data):
            return sorted(self.tokenizer.decode(d.model_input.to_ints()).split("<|user|>")[1].split("\n")[0] for d in data)
        self.assertEqual(prompts(by_client[maya_id]), ["q0", "q2"])
        self.assertEqual(prompts(by_client[leo_id]), ["q1"])
        self.assertEqual(
            [c[0] for c in self.service.calls if c[-1] == maya_id], ["forward_backward", "optim_step", "save_weights_for_sampler"]
        )
        self.assertRegex(paths["maya"], rf"^tinker://{maya_id}/sampler_weights/run-7-u[0-9a-f]{{16}}-v000001$")
        self.assertRegex(paths["leo"], rf"^tinker://{leo_id}/sampler_weights/")

    def test_each_user_samples_from_their_own_weights_and_a_new_user_from_the_base(self):
        paths = self.users.train([leased(0, "maya"), leased(1, "leo")])
        sampler, path = self.users.sampler("maya")
        self.assertEqual(path, paths["maya"])
        self.assertEqual(answer(sampler, self.tokenizer), f"answer from {paths['maya']}")
        self.assertEqual(answer(self.users.sampler("leo")[0], self.tokenizer), f"answer from {paths['leo']}")
        base, none = self.users.sampler("ava")
        self.assertIsNone(none)
        self.assertEqual(answer(base, self.tokenizer), f"answer from {BASE}")
        # A second step moves only that user's version.
        second = self.users.step("maya", [leased(2, "maya")])
        self.assertTrue(second.endswith("-v000002"))
        self.assertEqual(self.users.versions, {"maya": 2, "leo": 1})
        self.assertEqual(self.users.sampler("leo")[1], paths["leo"])

    def test_refuses_samples_of_nobody_or_of_another_user(self):
        with self.assertRaisesRegex(ValueError, "has no endUserId"):
            group_by_user([leased(0, "maya"), {**leased(1, "x"), "endUserId": None}])
        with self.assertRaisesRegex(ValueError, "is not 'maya'"):
            self.users.step("maya", [leased(0, "maya"), leased(1, "leo")])
        self.assertEqual([c for c in self.service.calls if c[0] == "forward_backward"], [])

    def test_sampler_names_hide_the_user_and_differ_per_user_and_version(self):
        a = user_sampler_name("run/1", "maya@example.com", 1)
        self.assertNotIn("maya", a)
        self.assertRegex(a, r"^run-1-u[0-9a-f]{16}-v000001$")
        self.assertNotEqual(a, user_sampler_name("run/1", "leo@example.com", 1))
        self.assertNotEqual(a, user_sampler_name("run/1", "maya@example.com", 2))


if __name__ == "__main__":
    unittest.main()
