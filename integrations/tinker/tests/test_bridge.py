import os
import sys
import unittest
import warnings
from unittest import mock

from integrations.slime.client import ControlPlaneError
from integrations.slime.leases import LeaseBook
from integrations.tinker import bridge
from fake_tinker import DATUM_CONTRACT, Datum, make_module

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "slime", "tests"))
from fakes import CharTokenizer  # noqa: E402


def leased(i, kind="RL", reward=1.0, teacher=None):
    return {
        "sampleId": f"s{i}", "turnId": f"t{i}", "kind": kind, "reward": reward, "messages": [{"role": "user", "content": "q"}],
        "tools": None, "response": {"content": "ab"}, "responseTokenIds": [7, 8], "lossMask": [1, 1],
        "rolloutLogprobs": [-1.0, -2.0], "teacherLogprobs": teacher, "policyVersion": 0, "staleness": 0, "attempt": 1,
    }


class FakeControlPlane:
    """The batch API's lease/ack/report in memory; an empty pool answers 409 like a stopped run does."""

    def __init__(self, samples):
        self.pool = list(samples)
        self.acks = []
        self.leases = 0

    def lease(self, size, min_size=1, lease_seconds=600, request_key=None):
        if len(self.pool) < min_size:
            raise ControlPlaneError("409: run is killed", status=409, code="CONFLICT")
        batch, self.pool = self.pool[:size], self.pool[size:]
        self.leases += 1
        return {"leaseId": f"lease-{self.leases}", "samples": batch, "paused": False, "available": len(self.pool)}

    def ack(self, lease_id, step, metrics=None, weight_version=None, checkpoint_path=None, duration_ms=None):
        self.acks.append({"leaseId": lease_id, "step": step, "metrics": metrics, "checkpointPath": checkpoint_path})
        return {"leaseId": lease_id, "step": step, "replayed": False}

    def report(self, **kwargs):
        return {"stop": False, "paused": False, "renewed": []}


FIELDS = {"tokens": [1, 2, 3, 4, 5], "response_length": 2, "reward": 1.0, "rollout_log_probs": [-1.0, -2.0], "teacher_log_probs": [-0.5, -2.5], "loss_mask": [1, 1]}


class AdvantageTest(unittest.TestCase):
    def test_per_method(self):
        # gap = teacher − behaviour = [0.5, −0.5]
        self.assertEqual(bridge.token_advantages(FIELDS, "grpo", 1, 1), [1.0, 1.0])
        self.assertEqual(bridge.token_advantages(FIELDS, "opd", 1, 1), [0.5, -0.5])
        self.assertEqual(bridge.token_advantages(FIELDS, "combine", 2.0, 0.5), [0.5 + 1.0, 0.5 - 1.0])
        self.assertEqual(bridge.token_advantages({**FIELDS, "loss_mask": [0, 1]}, "grpo", 1, 1), [0.0, 1.0])


class DatumTest(unittest.TestCase):
    def test_response_tokens_are_targets_one_position_earlier(self):
        module, _ = make_module(CharTokenizer())
        d = bridge.build_datum(module.types, FIELDS, [0.25, -0.75])
        self.assertIsInstance(d, Datum)
        self.assertEqual(d.model_input.to_ints(), [1, 2, 3, 4])
        self.assertEqual(d.model_input.length, 4)
        self.assertEqual(d.loss_fn_inputs["target_tokens"].data, [2, 3, 4, 5])
        self.assertEqual(d.loss_fn_inputs["logprobs"].data, [0.0, 0.0, -1.0, -2.0])
        self.assertEqual(d.loss_fn_inputs["advantages"].data, [0.0, 0.0, 0.25, -0.75])
        self.assertEqual(d.loss_fn_inputs["advantages"].shape, [4])


class TrainLoopTest(unittest.TestCase):
    def test_each_batch_is_trained_saved_and_acknowledged_until_the_run_stops(self):
        module, service = make_module(CharTokenizer())
        cp = FakeControlPlane([leased(i) for i in range(4)])
        cfg = bridge.BridgeConfig(base_model="Qwen/Qwen3-4B-Instruct-2507", lora_rank=16, learning_rate=3e-5, batch_size=2, loss="ppo", method="grpo")
        state = bridge.TrainState()
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)  # no deprecated `name=` call
            steps = bridge.train(module, LeaseBook(cp), cfg, "run-1", poll_s=0, state=state, make_sampler=True)
        self.assertEqual(steps, 2)
        self.assertEqual(service.created, [("Qwen/Qwen3-4B-Instruct-2507", 16)])
        self.assertEqual([c[0] for c in service.calls], ["forward_backward", "optim_step", "save_weights_for_sampler", "create_sampling_client"] * 2)
        self.assertEqual(service.calls[0][1], "ppo")
        self.assertEqual(len(service.calls[0][2]), 2)
        self.assertEqual(service.calls[1][1], 3e-5)
        self.assertEqual(service.calls[2][1], "run-1-step-000001")
        # The acknowledged checkpoint is the SDK's durable sampler path, never None.
        acked = [(a["leaseId"], a["step"], a["checkpointPath"]) for a in cp.acks]
        self.assertEqual([x[:2] for x in acked], [("lease-1", 1), ("lease-2", 2)])
        self.assertRegex(acked[0][2], r"^tinker://run-[0-9a-f]+/sampler_weights/run-1-step-000001$")
        self.assertRegex(acked[1][2], r"/sampler_weights/run-1-step-000002$")
        self.assertEqual(state.checkpoint_path, acked[1][2])
        self.assertEqual(service.calls[-1], ("create_sampling_client", acked[1][2]))
        self.assertFalse(hasattr(state.sampler, "model_path"))
        self.assertEqual(cp.acks[0]["metrics"]["tinker/loss:sum"], 1.5)
        self.assertEqual(cp.acks[0]["metrics"]["tinker/batch_size"], 2.0)

    def test_a_restarted_bridge_resumes_the_state_saved_with_the_runs_newest_sampler_weights(self):
        import tempfile

        from integrations.tinker.states import StateBook

        module, service = make_module(CharTokenizer())
        cfg = bridge.BridgeConfig(base_model="Qwen/Qwen3-4B-Instruct-2507", lora_rank=16, learning_rate=3e-5, batch_size=2, loss="ppo", method="grpo")
        with tempfile.TemporaryDirectory() as d:
            states = StateBook(os.path.join(d, "states.json"))
            first = FakeControlPlane([leased(i) for i in range(2)])
            bridge.train(module, LeaseBook(first), cfg, "run-1", poll_s=0, states=states)
            sampler = first.acks[0]["checkpointPath"]
            saved = states.get(sampler)
            self.assertRegex(saved, r"^tinker://run-[0-9a-f]+/weights/run-1-step-000001$")
            self.assertEqual(service.states[saved][2], 1)  # one optimizer step in that state

            # A new process (a new book object on the same file) resumes from it, past the run's step 1.
            again = FakeControlPlane([leased(i) for i in range(2, 4)])
            bridge.train(module, LeaseBook(again), cfg, "run-1", poll_s=0, start=1, states=StateBook(states.path), resume_from=sampler)
            self.assertIn(("create_training_client_from_state_with_optimizer", saved), service.calls)
            self.assertEqual(len(service.created), 1)  # no fresh LoRA the second time
            # Its step 2 continues the saved weights and moments: two optimizer steps in the new state.
            self.assertEqual(service.states[states.get(again.acks[0]["checkpointPath"])][2], 2)

            # Without a state for the path (another machine), a fresh LoRA trains on.
            other = FakeControlPlane([leased(i) for i in range(4, 6)])
            bridge.train(module, LeaseBook(other), cfg, "run-1", poll_s=0, start=2, states=states, resume_from="tinker://elsewhere/sampler_weights/x")
            self.assertEqual(len(service.created), 2)

    def test_a_restarted_bridge_numbers_its_steps_and_sampler_names_past_the_runs_last_step(self):
        # The console's answer to the first report: the run recorded 3 steps before this process started.
        start, checkpoint = bridge.resume_point({"lastStep": 3, "resume": {"policyVersion": 3, "step": 3, "checkpointPath": "tinker://x/sampler_weights/run-1-step-000003"}})
        self.assertEqual((start, checkpoint), (3, "tinker://x/sampler_weights/run-1-step-000003"))
        self.assertEqual(bridge.resume_point({"lastStep": 0, "resume": None}), (0, None))
        module, service = make_module(CharTokenizer())
        cp = FakeControlPlane([leased(i) for i in range(2)])
        cfg = bridge.BridgeConfig(base_model="Qwen/Qwen3-4B-Instruct-2507", lora_rank=16, learning_rate=3e-5, batch_size=2, loss="ppo", method="grpo")
        self.assertEqual(bridge.train(module, LeaseBook(cp), cfg, "run-1", poll_s=0, start=start), 1)
        # Step 4, not 1 (which the console refuses as recorded), and a sampler name no earlier step used.
        self.assertEqual([a["step"] for a in cp.acks], [4])
        self.assertEqual([c[1] for c in service.calls if c[0] == "save_weights_for_sampler"], ["run-1-step-000004"])

    def test_main_refuses_to_start_without_the_users_own_key(self):
        module, _ = make_module(CharTokenizer())
        with mock.patch.dict(sys.modules, {"tinker": module}), mock.patch.dict(os.environ, {"TINKER_API_KEY": ""}):
            self.assertEqual(bridge.main(), 2)

    def test_main_explains_a_missing_sdk(self):
        with mock.patch.dict(sys.modules, {"tinker": None}):
            self.assertEqual(bridge.main(), 2)



class DatumContractTest(unittest.TestCase):
    """The stand-in SDK against tests/fixtures/tinker/datum-contract.json (extracted from the real SDK)."""

    def test_the_stand_in_has_the_real_layout(self):
        import dataclasses

        from fake_tinker import ModelInput, TensorData

        self.assertEqual([f.name for f in dataclasses.fields(Datum)], DATUM_CONTRACT["datum"]["fields"])
        self.assertEqual(DATUM_CONTRACT["header"]["commit"], "d595dc2ba62a1494aa0f452fe1d0dbb7b321b870")
        for method in ("from_ints", "to_ints", "length"):
            self.assertIn(method, DATUM_CONTRACT["model_input"]["methods"])
            self.assertTrue(hasattr(ModelInput, method))
        self.assertEqual(DATUM_CONTRACT["tensor_data"]["init"][:3], ["data", "dtype", "shape"])
        self.assertEqual(TensorData([1], "int64", [1]).shape, [1])

    def test_the_stand_in_sampler_takes_the_sdks_parameters(self):
        import inspect

        from fake_tinker import SamplingClient

        # What the bridge calls on a sampler (sample to answer, compute_logprobs to score): the same parameters,
        # in the same order, as the SDK's SamplingClient (lib/public_interfaces/sampling_client.py).
        real = DATUM_CONTRACT["sampling_client"]["methods"]
        for method in ("sample", "compute_logprobs", "get_base_model"):
            params = list(inspect.signature(getattr(SamplingClient, method)).parameters)[1:]
            self.assertEqual(params, real[method], method)

    def test_the_stand_in_training_and_service_clients_take_the_sdks_parameters(self):
        import inspect

        from fake_tinker import TrainingClient

        # What the bridge trains, saves and resumes with: the SDK's parameters, in its order
        # (lib/public_interfaces/training_client.py, service_client.py); a method the SDK lacks fails here.
        module, _ = make_module(CharTokenizer())
        for cls, key in ((TrainingClient, "training_client"), (module.ServiceClient, "service_client")):
            real = DATUM_CONTRACT[key]["methods"]
            for method in [m for m in vars(cls) if not m.startswith("_")]:
                self.assertIn(method, real, f"{key}.{method}")
                params = list(inspect.signature(getattr(cls, method)).parameters)[1:]
                self.assertEqual(params, real[method], f"{key}.{method}")

    def test_the_stand_in_types_have_only_the_sdks_fields(self):
        import dataclasses

        import fake_tinker

        # What the bridge builds (AdamParams, SamplingParams: only fields the SDK's class has) and reads off the
        # responses (forward_backward, optim_step, save_state, save_weights_for_sampler, sample): every attribute the
        # stand-in gives is one the SDK's class has, so the bridge cannot come to rely on one the real SDK lacks.
        types = DATUM_CONTRACT["types"]
        for name in ("AdamParams", "SamplingParams"):
            self.assertLessEqual(set(getattr(fake_tinker, name)._FIELDS), set(types[name]["fields"]), name)
        for name in (
            "ForwardBackwardOutput",
            "OptimStepResponse",
            "SaveWeightsResponse",
            "SaveWeightsForSamplerResponse",
            "SampledSequence",
            "SampleResponse",
        ):
            given = {f.name for f in dataclasses.fields(getattr(fake_tinker, name))}
            self.assertLessEqual(given, set(types[name]["attributes"]), name)
        # save_state's response: the path the bridge's state book keeps (states.py).
        self.assertIn("path", types["SaveWeightsResponse"]["attributes"])

    def test_a_loss_input_the_sdk_does_not_know_is_refused(self):
        from fake_tinker import ModelInput

        with self.assertRaises(KeyError):
            Datum(model_input=ModelInput.from_ints([1, 2]), loss_fn_inputs={"teacher_log_probs": [0.0]})
        d = Datum(model_input=ModelInput.from_ints([1, 2]), loss_fn_inputs={"target_tokens": [2], "advantages": [0.5]})
        self.assertEqual([d.loss_fn_inputs["target_tokens"].dtype, d.loss_fn_inputs["advantages"].dtype], ["int64", "float32"])


if __name__ == "__main__":
    unittest.main()
