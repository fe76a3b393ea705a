"""The GPU scripts rehearsed on the tiny CPU model, so they still run when a GPU is next lent (each lease is
short: a script that fails on an import or a renamed field wastes it)."""

import contextlib
import gc
import io
import json
import os
import tempfile
import unittest
import warnings

try:
    import torch
except ImportError:  # the suite reports itself skipped where python3-torch is missing
    torch = None

needs_torch = unittest.skipUnless(torch is not None, "needs torch (Debian: apt-get install python3-torch)")


@contextlib.contextmanager
def quietly():
    """The script's progress lines and the sockets its load threads leave to the collector stay out of the
    runner's report (the console's test reads it line by line)."""
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        yield
        gc.collect()


@needs_torch
class DeviceScriptsTest(unittest.TestCase):
    def test_the_serving_profile_reports_each_part(self):
        from integrations.hf import profile_serving

        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "profile.json")
            with quietly():
                self.assertEqual(profile_serving.main(["--tiny", "--repeats", "1", "--out", out]), 0)
            with open(out, encoding="utf-8") as f:
                report = json.load(f)
        for key in ("first_call_s", "direct_b1", "direct_b16", "direct_b16_base", "pick_ms_b16", "http_16x8_idle_s", "http_16x8_training_s"):
            self.assertIn(key, report)
        self.assertEqual(report["direct_b16"]["batch"], 16)
        self.assertGreater(report["direct_b16"]["forward_share"], 0)
        self.assertGreater(report["training_steps_during_burst"], 0)

    def test_the_device_check_trains_every_method_beside_the_control(self):
        from integrations.hf import device_check

        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "check.json")
            with quietly():
                self.assertEqual(device_check.main(["--tiny", "--steps", "1", "--idle-seconds", "0.2", "--out", out]), 0)
            with open(out, encoding="utf-8") as f:
                report = json.load(f)
        self.assertEqual(set(report["methods"]), {"grpo", "opd", "combine", "control"})
        self.assertEqual(report["failed_requests"], 0)
        control = report["methods"]["control"]["target_prob"]
        self.assertEqual(control[0], control[-1])  # lr 0 leaves the weights where they were


if __name__ == "__main__":
    unittest.main()
