"""A bridge-mode restart resumes from the latest saved checkpoint (integrations/slime/resume.py)."""

import argparse
import os
import tempfile
import unittest

from integrations.slime.resume import resume_argv, rollout_offset

BASE = ["train_async.py", "--megatron-to-hf-mode", "bridge", "--hf-checkpoint", "/m", "--ref-load", "/m"]


class ResumeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.save = os.path.join(self.dir.name, "ckpt")
        self.argv = BASE + ["--save", self.save]

    def tearDown(self):
        self.dir.cleanup()

    def checkpoint(self, iteration):
        os.makedirs(self.save, exist_ok=True)
        with open(os.path.join(self.save, "latest_checkpointed_iteration.txt"), "w") as f:
            f.write(str(iteration))

    def test_first_launch_starts_from_the_base_weights(self):
        self.assertEqual(resume_argv(self.argv), self.argv)
        os.makedirs(self.save)  # an empty save directory is no checkpoint either (slime asserts on it)
        self.assertEqual(resume_argv(self.argv), self.argv)

    def test_a_restart_loads_the_saved_checkpoint_and_numbers_rollouts_on_from_it(self):
        self.checkpoint(41)
        argv = resume_argv(self.argv)
        self.assertEqual(argv, self.argv + ["--load", self.save])
        # What slime's bridge branch then leaves: load = save, start_rollout_id forced to 0.
        args = argparse.Namespace(megatron_to_hf_mode="bridge", load=self.save, save=self.save, start_rollout_id=0)
        self.assertEqual(rollout_offset(args), 42)

    def test_raw_mode_and_an_explicit_load_are_left_alone(self):
        self.checkpoint(3)
        raw = ["train_async.py", "--ref-load", "/torch_dist", "--save", self.save]
        self.assertEqual(resume_argv(raw), raw)
        explicit = self.argv + ["--load", "/elsewhere"]
        self.assertEqual(resume_argv(explicit), explicit)
        # Raw mode resumes by itself (slime sets start_rollout_id from the checkpoint): no offset.
        args = argparse.Namespace(megatron_to_hf_mode="raw", load=self.save, save=self.save, start_rollout_id=4)
        self.assertEqual(rollout_offset(args), 0)
        fresh = argparse.Namespace(megatron_to_hf_mode="bridge", load="/m", save=self.save, start_rollout_id=0)
        self.assertEqual(rollout_offset(fresh), 0)


if __name__ == "__main__":
    unittest.main()
