"""The sampling endpoint against the fake Tinker SDK (fake_tinker.py): OpenAI chat completions from the sampler
of the latest trained step, with the token ids and behaviour log-probs the proxy records."""

import json
import os
import sys
import unittest
import urllib.error
import urllib.request

from integrations.slime.leases import LeaseBook
from integrations.tinker import bridge
from integrations.tinker.serve import SamplerSlot, SamplingServer, parse_message
from fake_tinker import fake_logprob, make_module
from test_bridge import FakeControlPlane, leased

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "slime", "tests"))
from fakes import CharTokenizer  # noqa: E402

EOS = 3


class EosCharTokenizer(CharTokenizer):
    eos_token_id = EOS


def post(url, body):
    req = urllib.request.Request(f"{url}/chat/completions", data=json.dumps(body).encode(), method="POST", headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class ServeTest(unittest.TestCase):
    def setUp(self):
        self.tinker, self.service = make_module(EosCharTokenizer())
        self.slot = SamplerSlot()
        self.server = SamplingServer(self.tinker.types, self.slot, served_name="Qwen/Qwen3-4B-Instruct-2507").start()

    def tearDown(self):
        self.server.close()

    def test_not_ready_until_the_loop_fills_the_slot(self):
        status, body = post(self.server.url, {"messages": [{"role": "user", "content": "hi"}]})
        self.assertEqual(status, 503)
        self.assertIn("not ready", body["error"]["message"])

    def test_answers_with_the_base_model_then_each_steps_weights(self):
        cp = FakeControlPlane([leased(i) for i in range(4)])
        cfg = bridge.BridgeConfig(base_model="Qwen/Qwen3-4B-Instruct-2507", batch_size=2, method="grpo")
        # One step, then look: the latest sampler path answers.
        steps = bridge.train(self.tinker, LeaseBook(cp), cfg, "run-1", max_steps=1, poll_s=0, slot=self.slot)
        self.assertEqual(steps, 1)
        path = cp.acks[0]["checkpointPath"]
        messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "list files"}]
        status, body = post(self.server.url, {"model": "ignored", "messages": messages, "temperature": 0.7, "max_tokens": 200})
        self.assertEqual(status, 200, body)
        choice = body["choices"][0]
        self.assertEqual(choice["message"], {"role": "assistant", "content": f"answer from {path}"})
        self.assertEqual(choice["finish_reason"], "stop")
        reply = [ord(c) for c in f"answer from {path}"] + [EOS]
        self.assertEqual(choice["token_ids"], reply)
        self.assertEqual([e["logprob"] for e in choice["logprobs"]["content"]], [fake_logprob(t) for t in reply])
        self.assertEqual(body["metadata"], {"sampler_path": path, "step": 1})
        self.assertEqual(body["model"], "Qwen/Qwen3-4B-Instruct-2507")
        # The prompt the sampler got: the policy's chat template with the generation prompt, tokenized.
        sampler = self.slot.get()[0]
        rendered = EosCharTokenizer().apply_chat_template(messages, add_generation_prompt=True)
        self.assertEqual(sampler.prompts[-1], [ord(c) for c in rendered])
        self.assertEqual(body["usage"], {"prompt_tokens": len(rendered), "completion_tokens": len(reply), "total_tokens": len(rendered) + len(reply)})

    def test_base_model_before_the_first_step_and_length_cut(self):
        self.slot.set(self.tinker.ServiceClient().create_sampling_client(base_model="Qwen/Qwen3-4B"), EosCharTokenizer(), None, 0)
        status, body = post(self.server.url, {"messages": [{"role": "user", "content": "x"}], "max_tokens": 6, "n": 2, "stream": True})
        self.assertEqual(status, 200, body)
        self.assertEqual([c["message"]["content"] for c in body["choices"]], ["answer", "answer"])
        self.assertEqual([c["finish_reason"] for c in body["choices"]], ["length", "length"])
        self.assertEqual(body["metadata"], {"sampler_path": None, "step": 0})

    def test_bad_requests_are_400(self):
        self.slot.set(self.tinker.ServiceClient().create_sampling_client(base_model="b"), EosCharTokenizer(), None, 0)
        self.assertEqual(post(self.server.url, {"messages": []})[0], 400)
        self.assertEqual(post(self.server.url, {"messages": [{"role": "user", "content": "x"}], "n": 99})[0], 400)
        self.assertEqual(post(self.server.url, {"messages": [{"role": "user", "content": "x"}], "max_tokens": -1})[0], 400)


class StartServingTest(unittest.TestCase):
    def test_reports_the_endpoint_as_the_runs_rollout_url_only_when_asked(self):
        tinker, _ = make_module(EosCharTokenizer())
        cfg = bridge.BridgeConfig(base_model="Qwen/Qwen3-4B")

        class Client:
            reports = []

            def report(self, **kwargs):
                self.reports.append(kwargs)

        client = Client()
        self.assertIsNone(bridge.start_serving(tinker, client, cfg, {}))
        server = bridge.start_serving(tinker, client, cfg, {"TINKER_SERVE_PORT": "0"})
        try:
            self.assertRegex(server.url, r"^http://127\.0\.0\.1:\d+/v1$")
            self.assertEqual(client.reports, [{"rollout_url": server.url, "message": f"serving the trained weights at {server.url}"}])
            self.assertEqual(post(server.url, {"messages": [{"role": "user", "content": "x"}]})[0], 503)
        finally:
            server.close()
        server = bridge.start_serving(tinker, client, cfg, {"TINKER_SERVE_PORT": "0", "TINKER_SERVE_URL": "http://trainer-host:30010/v1"})
        server.close()
        self.assertEqual(client.reports[-1]["rollout_url"], "http://trainer-host:30010/v1")


class ParseMessageTest(unittest.TestCase):
    def test_tool_calls_and_reasoning_in_the_qwen_format(self):
        text = '<think>need ls</think>\nI will look.\n<tool_call>\n{"name": "exec", "arguments": {"cmd": "ls"}}\n</tool_call>'
        m = parse_message(text)
        self.assertEqual(m["reasoning_content"], "need ls")
        self.assertEqual(m["content"], "I will look.")
        self.assertEqual([(c["type"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in m["tool_calls"]], [("function", "exec", {"cmd": "ls"})])

    def test_a_malformed_call_stays_text(self):
        m = parse_message("<tool_call>not json</tool_call>")
        self.assertNotIn("tool_calls", m)
        self.assertEqual(m["content"], "<tool_call>not json</tool_call>")


if __name__ == "__main__":
    unittest.main()
