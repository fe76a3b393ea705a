"""The episode lease path against the real control-plane API. tests/integration/training/leases/pythonEpisodes.test.ts
starts the API, stores four finished episode groups of an environment experiment and a trainer key, and runs this
file alone (``-p episodes_api.py``: the discover pattern ``test*.py`` leaves it out of the sample-lease suite)
with CONTROL_PLANE_URL, CONTROL_PLANE_API_KEY and RUN_ID set, then checks the database."""

import argparse
import os
import unittest

from integrations.slime import rollout
from fakes import FakeSample, FakeTrainOutput, RolloutJobCase

HAVE_API = all(os.environ.get(n) for n in ("CONTROL_PLANE_URL", "CONTROL_PLANE_API_KEY", "RUN_ID"))


@unittest.skipUnless(HAVE_API, "needs the running API: run through tests/integration/training/leases/pythonEpisodes.test.ts")
class EpisodeRolloutTest(RolloutJobCase, unittest.TestCase):
    ROLLOUT_ENV = {"OPENCLAW_LEASE_UNIT": "episodes", "OPENCLAW_METHOD": "grpo"}

    def test_two_rollouts_of_episode_groups_for_step_wise_then_acknowledged(self):
        args = argparse.Namespace(
            rollout_batch_size=2, n_samples_per_prompt=2, colocate=False, sglang_router_ip="127.0.0.1",
            sglang_router_port=30000, hf_checkpoint="unused", save=None, start_rollout_id=0,
        )
        first = rollout.generate_rollout(args, 0, None)
        self.assertIsInstance(first, FakeTrainOutput)
        self.assertEqual([len(g) for g in first.samples], [2, 2])
        # The fixture's first group: outcomes 1 and 0; member 0 has two steps (PRM 0.5, then no vote), member 1 one.
        a0, a1 = first.samples[0]
        self.assertIsInstance(a0, FakeSample)
        self.assertEqual(a0.metadata["step_wise"]["step_scores"], [0.5, 1.0])
        self.assertEqual(a1.metadata["step_wise"]["step_scores"], [0.0])
        self.assertEqual(a0.group_index, a1.group_index)
        response = a0.tokens[len(a0.tokens) - a0.response_length:]
        # Each step's recorded tokens [10+i, 20+i] sit in its span; the tool output between them is not trained.
        self.assertEqual([response[s:e] for s, e in a0.metadata["step_wise"]["step_token_spans"]], [[10, 20], [11, 21]])
        self.assertEqual(sum(a0.loss_mask), 4)
        self.assertEqual(len(a0.rollout_log_probs), a0.response_length)
        # The second group lost a member (FAILED): padded with a removed sample that carries no step.
        b0, b1 = first.samples[1]
        self.assertFalse(b0.remove_sample)
        self.assertTrue(b1.remove_sample)
        self.assertEqual(b1.metadata["step_wise"]["step_scores"], [])
        self.assertEqual(first.metrics["openclaw/episodes_failed"], 1.0)
        self.assertEqual(first.metrics["openclaw/groups_left"], 2.0)

        second = rollout.generate_rollout(args, 1, None)
        self.assertEqual([len(g) for g in second.samples], [2, 2])
        self.assertEqual(second.metrics["openclaw/groups_left"], 0.0)
        job = rollout._job
        acked = job.book.acknowledge_through(1)
        self.assertEqual([(a["step"], a["trainedSamples"]) for a in acked], [(1, 4), (2, 5)])


if __name__ == "__main__":
    unittest.main()
