"""Per-user adapters on Tinker (per_user.py) against the fake SDK rebuilt from its source (fake_tinker.py): one LoRA
training client per user on one shared base, each user's samples only on their own client, a sampler per user
answering from that user's weights, the base's sampler for a user without any; the bridge's per-user loop over
per-user leases, and the endpoint loading each user's sampler path by name as the proxy asks (SGLang's contract)."""

import json
import os
import sys
import unittest
import urllib.error
import urllib.request

from integrations.slime.leases import LeaseBook
from integrations.tinker import bridge
from integrations.tinker.per_user import PerUserTinker, group_by_user, train_per_user, user_sampler_name
from integrations.tinker.serve import LoraSamplers, SamplerSlot, SamplingServer
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


class PerUserLeases:
    """The batch API for a per-user run: each lease one user's samples, naming them; 409 once drained."""

    def __init__(self, batches):
        self.batches = list(batches)
        self.acks = []

    def lease(self, size, min_size=1, lease_seconds=600, request_key=None):
        from integrations.slime.client import ControlPlaneError

        if not self.batches:
            raise ControlPlaneError("409: run is killed", status=409, code="CONFLICT")
        user, samples, *adapter = self.batches.pop(0)
        lease = {"leaseId": f"lease-{len(self.acks)}-{user}", "endUserId": user, "samples": samples, "paused": False, "available": 0}
        return {**lease, "adapter": adapter[0] if adapter else None}

    def ack(self, lease_id, step, metrics=None, weight_version=None, checkpoint_path=None, duration_ms=None):
        self.acks.append({"leaseId": lease_id, "step": step, "metrics": metrics, "checkpointPath": checkpoint_path})
        return {"leaseId": lease_id, "step": step, "replayed": False}

    def report(self, **kwargs):
        return {"stop": False, "paused": False, "renewed": []}


class BridgePerUserTest(unittest.TestCase):
    def setUp(self):
        self.tokenizer = CharTokenizer()
        self.module, self.service = make_module(self.tokenizer)
        cfg = bridge.BridgeConfig(base_model=BASE, lora_rank=8, method="grpo")
        self.users = PerUserTinker(self.module, cfg, "run-7")

    def test_each_lease_steps_its_users_client_and_is_acknowledged_with_their_sampler_path(self):
        cp = PerUserLeases([("maya", [leased(0, "maya"), leased(1, "maya")]), ("leo", [leased(2, "leo")]), ("maya", [leased(3, "maya")])])
        steps = train_per_user(self.users, LeaseBook(cp), poll_s=0)
        self.assertEqual(steps, 3)
        maya_id = self.users.training_client("maya").model_id
        leo_id = self.users.training_client("leo").model_id
        paths = [a["checkpointPath"] for a in cp.acks]
        self.assertRegex(paths[0], rf"^tinker://{maya_id}/sampler_weights/run-7-u[0-9a-f]{{16}}-v000001$")
        self.assertRegex(paths[1], rf"^tinker://{leo_id}/sampler_weights/run-7-u[0-9a-f]{{16}}-v000001$")
        self.assertRegex(paths[2], rf"^tinker://{maya_id}/sampler_weights/run-7-u[0-9a-f]{{16}}-v000002$")
        self.assertEqual([a["step"] for a in cp.acks], [1, 2, 3])
        self.assertEqual(cp.acks[0]["metrics"], {"tinker/loss:sum": 1.5, "tinker/batch_size": 2.0})
        # Each client trained its own user's lease only: Maya's twice (2 + 1 samples), Leo's once.
        sizes = [(c[3], len(c[2])) for c in self.service.calls if c[0] == "forward_backward"]
        self.assertEqual(sizes, [(maya_id, 2), (leo_id, 1), (maya_id, 1)])

    def test_a_restarted_bridge_numbers_a_users_sampler_past_the_consoles_latest_version(self):
        # This process never trained Maya; the console has her versions 1-3 (3 a candidate, 2 served).
        served = {"served": {"version": 2, "path": "tinker://old/sampler_weights/x"}, "latestVersion": 3}
        cp = PerUserLeases([("maya", [leased(0, "maya")], served), ("maya", [leased(1, "maya")], {**served, "latestVersion": 4})])
        # The run recorded 7 steps before this process: its steps are 8 and 9 (1 and 2 would be refused as recorded).
        self.assertEqual(train_per_user(self.users, LeaseBook(cp), poll_s=0, start=7), 2)
        paths = [a["checkpointPath"] for a in cp.acks]
        self.assertRegex(paths[0], r"-v000004$")
        self.assertRegex(paths[1], r"-v000005$")
        self.assertEqual([a["step"] for a in cp.acks], [8, 9])

    def test_a_restarted_bridge_resumes_a_user_from_the_state_saved_with_their_served_version(self):
        import tempfile

        from integrations.tinker.states import StateBook

        with tempfile.TemporaryDirectory() as d:
            states = StateBook(os.path.join(d, "states.json"))
            self.users.states = states
            cp = PerUserLeases([("maya", [leased(0, "maya")])])
            train_per_user(self.users, LeaseBook(cp), poll_s=0)
            v1 = cp.acks[0]["checkpointPath"]
            self.assertIsNotNone(states.get(v1))
            # A new process: Maya's served version is v1; her client resumes from its state, not a fresh LoRA.
            cfg = bridge.BridgeConfig(base_model=BASE, lora_rank=8, method="grpo")
            restarted = PerUserTinker(self.module, cfg, "run-7", states=StateBook(states.path))
            served = {"served": {"version": 1, "path": v1}, "latestVersion": 1}
            cp2 = PerUserLeases([("maya", [leased(1, "maya")], served)])
            train_per_user(restarted, LeaseBook(cp2), poll_s=0, start=1)
            self.assertIn(("create_training_client_from_state_with_optimizer", states.get(v1)), self.service.calls)
            self.assertEqual(self.service.states[states.get(cp2.acks[0]["checkpointPath"])][2], 2)

    def test_refuses_a_lease_of_no_end_user(self):
        cp = PerUserLeases([(None, [leased(0, "maya")])])
        with self.assertRaisesRegex(SystemExit, "no end user"):
            train_per_user(self.users, LeaseBook(cp), poll_s=0)
        self.assertEqual([c for c in self.service.calls if c[0] == "forward_backward"], [])


def call(url, path, body):
    req = urllib.request.Request(url.replace("/v1", path), data=json.dumps(body).encode(), method="POST", headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class PerUserEndpointTest(unittest.TestCase):
    """The endpoint as the proxy drives it for a per-user Tinker experiment (policy.loraAdapters "sglang")."""

    def setUp(self):
        with open(os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "fixtures", "lora", "sglang.json"), encoding="utf-8") as f:
            self.contract = json.load(f)
        self.tokenizer = CharTokenizer()
        self.module, self.service = make_module(self.tokenizer)
        slot = SamplerSlot()
        service = self.module.ServiceClient()
        slot.set(service.create_sampling_client(base_model=BASE), self.tokenizer, None, 0)
        self.server = SamplingServer(self.module.types, slot, served_name=BASE, loras=LoraSamplers(service)).start()

    def tearDown(self):
        self.server.close()

    def ask(self, **extra):
        return call(self.server.url, "/v1/chat/completions", {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 200, **extra})

    def test_loads_a_users_sampler_path_by_name_and_answers_requests_naming_it(self):
        routes = {r["path"]: r["body"] for r in self.contract["routes"]}
        load_fields = {f["name"] for f in self.contract["models"][routes["/load_lora_adapter"]]["fields"]}
        self.assertLessEqual({"lora_name", "lora_path"}, load_fields)
        self.assertEqual(self.contract["perRequest"]["field"], "lora_path")
        path = "tinker://run-abc/sampler_weights/run-7-u0123456789abcdef-v000001"
        self.assertEqual(call(self.server.url, "/load_lora_adapter", {"lora_name": "ua-1", "lora_path": path}), (200, {"success": True, "error_message": None}))
        status, body = self.ask(lora_path="ua-1")
        self.assertEqual(status, 200, body)
        self.assertEqual(body["metadata"]["sampler_path"], path)
        self.assertEqual(self.tokenizer.decode(body["choices"][0]["token_ids"]), f"answer from {path}")
        # Without lora_path: the base model (a user served the base).
        status, body = self.ask()
        self.assertEqual((status, body["metadata"]["sampler_path"]), (200, None))

    def test_answers_a_name_it_does_not_hold_as_sglang_does_so_the_proxy_loads_it_again(self):
        call(self.server.url, "/load_lora_adapter", {"lora_name": "ua-1", "lora_path": "tinker://m/sampler_weights/x"})
        self.assertEqual(call(self.server.url, "/unload_lora_adapter", {"lora_name": "ua-1"})[1]["success"], True)
        status, body = self.ask(lora_path="ua-1")
        self.assertEqual(status, 400)
        before, after, end = self.contract["notLoaded"]["parts"]
        self.assertEqual(body["error"]["message"], f"{before}ua-1{after}{end}")
        status, body = call(self.server.url, "/load_lora_adapter", {"lora_name": "ua-2", "lora_path": "/etc/passwd"})
        self.assertEqual(status, 400)

    def test_scores_a_users_sampler_as_sglangs_generate_does_for_the_per_user_gate(self):
        import fake_tinker

        # Only fields of SGLang's GenerateReqInput (the contract the console's scorer is held to) are read.
        generate_fields = {f["name"] for f in self.contract["models"]["GenerateReqInput"]["fields"]}
        from integrations.tinker.serve import SCORE_FIELDS

        self.assertLessEqual(SCORE_FIELDS, generate_fields)
        path = "tinker://run-abc/sampler_weights/u-v000002"
        self.addCleanup(fake_tinker.SKILLS.clear)
        fake_tinker.SKILLS[path] = 0.25
        call(self.server.url, "/load_lora_adapter", {"lora_name": "gate-1", "lora_path": path})
        ids = [ord(c) for c in "hello"]
        score = {"input_ids": ids, "sampling_params": {"max_new_tokens": 0, "temperature": 0}, "return_logprob": True, "logprob_start_len": 2}
        status, base = call(self.server.url, "/generate", score)
        self.assertEqual(status, 200, base)
        entries = base["meta_info"]["input_token_logprobs"]
        # From logprob_start_len on, [logprob, id, text]; the entry at the start is None, as SGLang's is.
        self.assertEqual([e[1] for e in entries], ids[2:])
        self.assertEqual([e[0] for e in entries], [None] + [fake_tinker.fake_logprob(t) for t in ids[3:]])
        status, user = call(self.server.url, "/generate", {**score, "lora_path": "gate-1"})
        self.assertEqual(status, 200, user)
        self.assertEqual([e[0] for e in user["meta_info"]["input_token_logprobs"]], [None] + [fake_tinker.fake_logprob(t) + 0.25 for t in ids[3:]])
        # Text is tokenized with the policy's tokenizer (the scorer's tokenize call).
        status, text = call(self.server.url, "/generate", {"text": "hello", "sampling_params": {"max_new_tokens": 0}, "return_logprob": True, "logprob_start_len": 0})
        self.assertEqual([e[1] for e in text["meta_info"]["input_token_logprobs"]], ids)
        # It only scores: generating, an unknown field, a bad start or an adapter it does not hold is a 400.
        for bad in (
            {**score, "sampling_params": {"max_new_tokens": 8}},
            {**score, "stream": True},
            {**score, "logprob_start_len": 5},
            {**score, "lora_path": "gate-9"},
            {"sampling_params": {"max_new_tokens": 0}, "return_logprob": True},
        ):
            self.assertEqual(call(self.server.url, "/generate", bad)[0], 400, bad)


if __name__ == "__main__":
    unittest.main()
