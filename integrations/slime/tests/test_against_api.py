"""The integration against the real control-plane API. tests/integration/training/leases/pythonModule.test.ts starts
the API, creates a run with judged turns and a trainer key, and runs this suite with CONTROL_PLANE_URL,
CONTROL_PLANE_API_KEY and RUN_ID set (then checks the database). Skipped when they are not set."""

import argparse
import math
import os
import tempfile
import time
import unittest

from integrations.slime import rollout
from integrations.slime.client import ControlPlaneClient, ControlPlaneError, Settings
from integrations.slime.leases import Heartbeat, LeaseBook
from fakes import FakeSample, FakeTrainOutput, RolloutJobCase

HAVE_API = all(os.environ.get(n) for n in ("CONTROL_PLANE_URL", "CONTROL_PLANE_API_KEY", "RUN_ID"))
skip = unittest.skipUnless(HAVE_API, "needs the running API: run through tests/integration/training/leases/pythonModule.test.ts")


def client() -> ControlPlaneClient:
    return ControlPlaneClient(Settings.from_env(), retries=0)


@skip
class ClientTest(unittest.TestCase):
    def test_lease_is_retry_safe_and_ack_is_idempotent(self):
        c = client()
        first = c.lease(size=1, request_key="client-test")
        self.assertIsNotNone(first["leaseId"])
        self.assertEqual(len(first["samples"]), 1)
        again = c.lease(size=1, request_key="client-test")
        self.assertEqual(again["leaseId"], first["leaseId"])

        ack = c.ack(first["leaseId"], step=1000, metrics={"train/loss": 0.5, "dropped": math.nan}, weight_version=7)
        self.assertEqual((ack["trainedSamples"], ack["replayed"]), (1, False))
        self.assertTrue(c.ack(first["leaseId"], step=1000)["replayed"])
        with self.assertRaises(ControlPlaneError) as ctx:
            c.ack(first["leaseId"], step=1001)
        self.assertEqual(ctx.exception.status, 409)

    def test_a_batch_larger_than_the_pool_holds_nothing(self):
        res = client().lease(size=500, min_size=500)
        self.assertIsNone(res["leaseId"])
        self.assertEqual(res["samples"], [])

    def test_errors_carry_status_and_code(self):
        with self.assertRaises(ControlPlaneError) as ctx:
            client().ack("no-such-lease", step=5)
        self.assertEqual((ctx.exception.status, ctx.exception.code, ctx.exception.retryable), (404, "NOT_FOUND", False))


@skip
class LeaseBookTest(unittest.TestCase):
    def test_a_restarted_job_acknowledges_what_its_checkpoint_trained(self):
        with tempfile.TemporaryDirectory() as d:
            state = os.path.join(d, "leases.json")
            before = LeaseBook(client(), state_path=state)
            lease = before.acquire(10, size=1, max_wait_s=20)
            after = LeaseBook(client(), state_path=state)
            self.assertNotEqual(after.instance_id, before.instance_id)
            acked = after.recover(start_rollout_id=11)
            self.assertEqual([(a["leaseId"], a["step"]) for a in acked], [(lease["leaseId"], 11)])
            self.assertEqual(after.pending, {})
            # A checkpoint from before rollout 10 would not have acknowledged it.
            self.assertEqual(LeaseBook(client(), state_path=state).recover(start_rollout_id=5), [])

    def test_heartbeat_renews_the_leases_still_held(self):
        book = LeaseBook(client(), lease_seconds=60)
        lease = book.acquire(20, size=1, max_wait_s=20)
        res = Heartbeat(book).beat()
        self.assertEqual([(r["leaseId"], r["held"]) for r in res["renewed"]], [(lease["leaseId"], 1)])
        self.assertFalse(book.stop_requested)


@skip
class RolloutFunctionTest(RolloutJobCase, unittest.TestCase):
    ROLLOUT_ENV = {"OPENCLAW_METHOD": "grpo"}

    def test_generate_rollout_follows_slimes_contract_and_acknowledges_two_rollouts_later(self):
        args = argparse.Namespace(
            rollout_batch_size=2, n_samples_per_prompt=1, colocate=False, sglang_router_ip="127.0.0.1",
            sglang_router_port=30000, hf_checkpoint="unused", save=None, start_rollout_id=0,
        )
        out = rollout.generate_rollout(args, 0, None)
        self.assertIsInstance(out, FakeTrainOutput)
        self.assertEqual([len(group) for group in out.samples], [1, 1])
        for [s] in out.samples:
            self.assertIsInstance(s, FakeSample)
            self.assertEqual(s.status, FakeSample.Status.COMPLETED)
            self.assertEqual(len(s.loss_mask), s.response_length)
            self.assertEqual(len(s.rollout_log_probs), s.response_length)
            # The fixture's turn i recorded response ids [100+i, 200+i, 300+i]; the prompt is the rendered template.
            self.assertEqual(s.response_length, 3)
            first = s.tokens[-3]
            self.assertEqual(s.tokens[-3:], [first, first + 100, first + 200])
            self.assertEqual(s.tokens[:-3], [ord(c) for c in s.prompt])
            self.assertEqual(s.reward, 1.0)
            self.assertTrue(s.prompt.endswith("<|assistant|>"))
        self.assertEqual(out.metrics["rollout/raw_reward"], 1.0)
        job = rollout._job
        lease0 = job.book.pending[0]

        rollout.generate_rollout(args, 1, None)
        self.assertEqual(sorted(job.book.pending), [0, 1])  # train(0) may still be running: not acknowledged
        rollout.generate_rollout(args, 2, None)
        self.assertEqual(sorted(job.book.pending), [1, 2])
        # Rollout 0 was acknowledged as step 1: acknowledging it again is a replay.
        self.assertTrue(job.client.ack(lease0, step=1)["replayed"])
        self.assertEqual(rollout.generate_rollout(args, 3, None, evaluation=True), {})


@skip
class StaleLeaseTest(unittest.TestCase):
    """Runs last (classes run by name): it takes the pool's last two samples."""

    def test_a_fenced_lease_is_dropped_on_its_409_and_the_job_carries_on(self):
        with tempfile.TemporaryDirectory() as d:
            state = os.path.join(d, "leases.json")
            book = LeaseBook(client(), state_path=state, lease_seconds=5)
            stale = book.acquire(30, size=1, max_wait_s=20)
            book.lease_seconds = 600
            kept = book.acquire(31, size=1, max_wait_s=20)
            # Another trainer takes whatever is free until it holds the stale batch's sample (free once its 5 s
            # lease has expired): the control plane now fences the first lease.
            thief, wanted, taken = client(), {s["sampleId"] for s in stale["samples"]}, set()
            for attempt in range(240):
                res = thief.lease(size=50, min_size=1, lease_seconds=600, request_key=f"thief-{attempt}")
                taken |= {s["sampleId"] for s in res["samples"]}
                if wanted <= taken:
                    break
                time.sleep(0.5)
            self.assertLessEqual(wanted, taken)
            # The stale lease is no longer renewed; the one still held is.
            renewed = Heartbeat(book).beat()["renewed"]
            self.assertEqual([r["leaseId"] for r in renewed], [kept["leaseId"]])

            # Its ack is a 409 (no retry: one request), the batch is dropped and the next step is recorded.
            calls = []
            real_ack = book.client.ack
            book.client.ack = lambda lease_id, **kw: calls.append(lease_id) or real_ack(lease_id, **kw)
            acked = book.acknowledge_through(31)
            self.assertEqual(calls, [stale["leaseId"], kept["leaseId"]])
            self.assertEqual([(a["leaseId"], a["step"]) for a in acked], [(kept["leaseId"], 32)])
            self.assertEqual(book.pending, {})
            # A restart does not try it again.
            self.assertEqual(LeaseBook(client(), state_path=state).recover(start_rollout_id=100), [])


if __name__ == "__main__":
    unittest.main()
