"""rollout.py reports the PRM router(s) beside the policy router (no API needed: the client's transport is stubbed)."""

import argparse
import unittest

from integrations.slime.client import ControlPlaneClient, Settings
from integrations.slime.rollout import _router_url, prm_endpoints


def fork_args(**kw):
    # The attributes slime's RolloutManager has set on args by the time it calls the rollout function.
    base = dict(sglang_router_ip="10.0.0.5", sglang_router_port=3456, prm_enable=True, prm_num_gpus=2,
                prm_router_ip="10.0.0.5", prm_router_port=3789, prm_model_path="/models/prm", hf_checkpoint="/models/policy")
    base.update(kw)
    return argparse.Namespace(**base)


class PrmEndpointsTest(unittest.TestCase):
    def test_fork_with_prm_engines_reports_their_router(self):
        self.assertEqual(_router_url(fork_args()), "http://10.0.0.5:3456/v1")
        self.assertEqual(prm_endpoints(fork_args(), {}), {"prmUrl": "http://10.0.0.5:3789", "prmModelPath": "/models/prm"})

    def test_prm_model_defaults_to_the_policy_checkpoint_like_the_fork(self):
        self.assertEqual(prm_endpoints(fork_args(prm_model_path=None), {})["prmModelPath"], "/models/policy")

    def test_no_prm_engines_no_fields(self):
        self.assertEqual(prm_endpoints(fork_args(prm_enable=False), {}), {})
        self.assertEqual(prm_endpoints(fork_args(prm_num_gpus=0), {}), {})
        # Upstream slime has no --prm-* arguments at all.
        self.assertEqual(prm_endpoints(argparse.Namespace(sglang_router_ip="h", sglang_router_port=1), {}), {})

    def test_environment_overrides_and_a_separate_teacher(self):
        env = {"OPENCLAW_PRM_URL": "http://prm.example:30010", "OPENCLAW_PRM_TEACHER_URL": "http://teacher.example:30011"}
        got = prm_endpoints(fork_args(), env)
        self.assertEqual(got["prmUrl"], "http://prm.example:30010")
        self.assertEqual(got["prmTeacherUrl"], "http://teacher.example:30011")
        got = prm_endpoints(fork_args(prm_teacher_router_ip="10.0.0.6", prm_teacher_router_port=4000), {})
        self.assertEqual(got["prmTeacherUrl"], "http://10.0.0.6:4000")

    def test_report_body_keeps_the_old_fields_and_adds_the_new_ones(self):
        sent = []

        class Stub(ControlPlaneClient):
            def _post(self, path, body):
                sent.append((path, dict(body)))
                return {}

        c = Stub(Settings(url="http://cp", api_key="k", run_id="r"))
        c.report(rollout_url="http://10.0.0.5:3456/v1", message="rollout function loaded", endpoints=prm_endpoints(fork_args(), {}))
        c.report(message="no endpoints")
        (path, body), (_, plain) = sent
        self.assertEqual(path, "/report")
        self.assertEqual(body["rolloutUrl"], "http://10.0.0.5:3456/v1")
        self.assertEqual(body["prmUrl"], "http://10.0.0.5:3789")
        self.assertEqual(body["prmModelPath"], "/models/prm")
        self.assertNotIn("prmTeacherUrl", body)
        self.assertEqual(set(plain), {"metrics", "leaseSeconds", "renewLeaseIds", "message"})


if __name__ == "__main__":
    unittest.main()
