"""Where the job finds the run's key: the child's env (local process, Tinker) or the file in the Ray package."""

import os
import tempfile
import unittest

from integrations.slime.client import ControlPlaneError, Settings

BASE = {"CONTROL_PLANE_URL": "http://cp.test:3000/", "RUN_ID": "run-1"}


class SettingsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        with open(os.path.join(self.dir, "openclaw_run_key"), "w") as f:
            f.write("ocrl_from_file\n")

    def test_key_from_the_package_file_relative_to_the_working_directory(self):
        s = Settings.from_env({**BASE, "OPENCLAW_API_KEY_FILE": "openclaw_run_key"}, cwd=self.dir)
        self.assertEqual((s.url, s.api_key, s.run_id), ("http://cp.test:3000", "ocrl_from_file", "run-1"))

    def test_relative_path_defaults_to_the_process_cwd(self):
        before = os.getcwd()
        os.chdir(self.dir)
        try:
            self.assertEqual(Settings.from_env({**BASE, "OPENCLAW_API_KEY_FILE": "openclaw_run_key"}).api_key, "ocrl_from_file")
        finally:
            os.chdir(before)

    def test_absolute_path(self):
        path = os.path.join(self.dir, "openclaw_run_key")
        self.assertEqual(Settings.from_env({**BASE, "OPENCLAW_API_KEY_FILE": path}, cwd="/").api_key, "ocrl_from_file")

    def test_env_key_wins_for_local_processes(self):
        env = {**BASE, "CONTROL_PLANE_API_KEY": "ocrl_env", "OPENCLAW_API_KEY_FILE": "openclaw_run_key"}
        self.assertEqual(Settings.from_env(env, cwd=self.dir).api_key, "ocrl_env")
        self.assertEqual(Settings.from_env({**BASE, "CONTROL_PLANE_API_KEY": "ocrl_env"}).api_key, "ocrl_env")

    def test_missing_or_empty_file_names_the_path(self):
        with self.assertRaisesRegex(ControlPlaneError, r"cannot read the run's key at .*/nope"):
            Settings.from_env({**BASE, "OPENCLAW_API_KEY_FILE": "nope"}, cwd=self.dir)
        open(os.path.join(self.dir, "empty"), "w").close()
        with self.assertRaisesRegex(ControlPlaneError, r"empty"):
            Settings.from_env({**BASE, "OPENCLAW_API_KEY_FILE": "empty"}, cwd=self.dir)

    def test_no_key_at_all_names_both_variables(self):
        with self.assertRaisesRegex(ControlPlaneError, r"CONTROL_PLANE_API_KEY \(or OPENCLAW_API_KEY_FILE\)"):
            Settings.from_env(dict(BASE))
        with self.assertRaisesRegex(ControlPlaneError, r"CONTROL_PLANE_URL"):
            Settings.from_env({"RUN_ID": "r", "CONTROL_PLANE_API_KEY": "k"})


if __name__ == "__main__":
    unittest.main()
