"""Full fine-tuning on the tiny model (HF_FINETUNE=full): a train step changes the served weights, the frozen base
(the judge's and the teacher's endpoints) does not move, checkpoints are whole model folders, and full-weight
swaps under live requests fail nothing."""

import json
import os
import tempfile
import threading
import unittest
import urllib.request

try:
    import torch
except ImportError:
    torch = None

needs_torch = unittest.skipUnless(torch is not None, "needs torch (Debian: apt-get install python3-torch)")

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello there"}]


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=120) as res:
        raw = res.read().decode()
    return raw if body.get("stream") else json.loads(raw)


@needs_torch
class FullFineTuningTest(unittest.TestCase):
    def setUp(self):
        from integrations.hf.train import load_model, serve

        self.model = load_model({"HF_MODEL": "tiny", "HF_FINETUNE": "full", "HF_TINY_SEED": "5"})
        self.server, self.slots, self.batcher = serve(self.model, {"HF_MAX_BATCH": "4"}, "tiny")
        self.prompt = self.model.encode(self.model.render(MESSAGES))
        self.response = self.model.encode("general kenobi") + [257]

    def tearDown(self):
        self.server.close()
        self.batcher.close()

    def trainer(self, lr=5e-2):
        from integrations.hf.train import TrainConfig, Trainer

        return Trainer(self.model, self.slots, TrainConfig(method="grpo", lr=lr, batch_size=2))

    def item(self, reward=1.0):
        return {"messages": MESSAGES, "responseTokenIds": self.response, "rolloutLogprobs": [-5.0] * len(self.response), "reward": reward, "kind": "RL"}

    def base_scores(self):
        """The frozen base over HTTP, as the judge and the teacher client see it (SGLang's /generate)."""
        ids = self.prompt + self.response
        res = post(f"{self.server.root}/base/generate", {"input_ids": ids, "sampling_params": {"max_new_tokens": 0}, "return_logprob": True, "logprob_start_len": len(self.prompt) - 1})
        return [e[0] for e in res["meta_info"]["input_token_logprobs"][1:]]

    def served_logprobs(self, seed=11):
        """A served reply's ids, its behaviour log-probs, and the version that sampled it."""
        res = post(f"{self.server.url}/chat/completions", {"model": "tiny", "messages": MESSAGES, "max_tokens": 8, "seed": seed})
        choice = res["choices"][0]
        return choice["token_ids"], [e["logprob"] for e in choice["logprobs"]["content"]], res["metadata"]["weight_version"]

    def rescore(self, ids, adapter):
        from integrations.hf.train import response_logp

        with torch.no_grad():
            return response_logp(self.model, [self.prompt + ids], [len(ids)], adapter)[0]

    def test_the_whole_trained_copy_is_trainable_and_the_other_copies_are_not(self):
        from integrations.hf.model import SERVE_ADAPTERS, TRAIN

        trained = {id(p) for p in self.model.trainable_parameters()}
        self.assertEqual(trained, {id(p) for p in self.model.copies[TRAIN].parameters()})
        self.assertEqual(len(trained), len(list(self.model.net.parameters())))
        for name in (None, *SERVE_ADAPTERS):
            self.assertFalse(any(p.requires_grad for p in self.model.copies[name].parameters()), name)
            self.assertFalse(any(id(p) in trained for p in self.model.copies[name].parameters()), name)

    def test_a_train_step_changes_the_served_weights_and_not_the_frozen_base(self):
        from integrations.hf.model import TRAIN

        base_before = self.base_scores()
        ids, served_before, version = self.served_logprobs()
        self.assertEqual(version, 0)
        # Before any step every copy is the base: the policy serves exactly the base's log-probs.
        for a, b in zip(served_before, self.rescore(ids, None).tolist()):
            self.assertAlmostEqual(a, b, places=5)
        trainer = self.trainer()
        trainer.step([self.item(), self.item()])
        # Trained, not yet published: serving still answers with the old weights.
        self.assertEqual(self.served_logprobs()[1], served_before)
        self.slots.publish(1)
        again, served_after, version = self.served_logprobs()
        self.assertEqual(version, 1)
        # Served log-probs are now the trained copy's (on whatever it sampled), and they moved.
        for a, b in zip(served_after, self.rescore(again, TRAIN).tolist()):
            self.assertAlmostEqual(a, b, places=4)
        moved = (self.rescore(ids, TRAIN) - torch.tensor(served_before)).abs().max()
        self.assertGreater(float(moved), 1e-3)
        # Reward +1 on the response pushed its tokens up under the trained weights.
        self.assertGreater(float(self.rescore(self.response, TRAIN).sum()), float(self.rescore(self.response, None).sum()))
        # The judge's and the teacher's frozen base: bit-for-bit unchanged over HTTP.
        self.assertEqual(self.base_scores(), base_before)

    def test_a_checkpoint_is_a_whole_model_folder_that_reproduces_the_trained_weights(self):
        from integrations.hf.model import TRAIN
        from integrations.hf.tiny import TinyTransformer

        self.trainer().step([self.item(), self.item()])
        with tempfile.TemporaryDirectory() as folder:
            self.model.save_adapter(TRAIN, folder)
            self.assertEqual(sorted(os.listdir(folder)), ["config.json", "model.pt"])
            with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
                config = json.load(f)
            self.assertEqual(config.pop("finetune"), "full")
            self.assertEqual(config.pop("model"), "tiny")
            # Built from a different seed, then loaded: every weight comes from the folder.
            net = TinyTransformer(**{**config, "seed": config["seed"] + 1}, adapters=())
            net.load_state_dict(torch.load(os.path.join(folder, "model.pt")))
        ids = torch.tensor([self.prompt + self.response])
        mask = torch.ones_like(ids)
        with torch.no_grad():
            self.assertTrue(torch.equal(net(ids, mask, None), self.model.logits(ids, mask, TRAIN)))
            self.assertFalse(torch.equal(net(ids, mask, None), self.model.logits(ids, mask, None)))

    def test_full_weight_swaps_under_live_requests_fail_nothing(self):
        from integrations.hf.model import TRAIN

        trainer = self.trainer()
        base_before = self.base_scores()
        stop = threading.Event()
        results, errors = [], []

        def client(stream, base):
            root = f"{self.server.root}/base/v1" if base else self.server.url
            while not stop.is_set():
                try:
                    results.append(post(f"{root}/chat/completions", {"model": "tiny", "messages": MESSAGES, "max_tokens": 6, "stream": stream}))
                except Exception as err:  # noqa: BLE001 (the test's result)
                    errors.append(err)

        threads = [threading.Thread(target=client, args=(i % 2 == 1, i == 3)) for i in range(4)]
        for t in threads:
            t.start()
        for step in range(1, 6):
            trainer.step([self.item(), self.item(-1.0)])
            self.slots.publish(step)
        ids, lps, version = self.served_logprobs()
        stop.set()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(self.server.failures, 0)
        versions = {r["metadata"]["weight_version"] for r in results if isinstance(r, dict) and not r["metadata"]["base"]}
        self.assertTrue(versions and versions <= set(range(6)), versions)
        self.assertEqual(version, 5)
        for a, b in zip(lps, self.rescore(ids, TRAIN).tolist()):
            self.assertAlmostEqual(a, b, places=4)
        self.assertEqual(self.base_scores(), base_before)


@needs_torch
class FinetuneSettingTest(unittest.TestCase):
    def test_lora_is_the_default_and_anything_else_is_refused(self):
        from integrations.hf.train import finetune_mode

        self.assertFalse(finetune_mode({}))
        self.assertFalse(finetune_mode({"HF_FINETUNE": "lora"}))
        self.assertTrue(finetune_mode({"HF_FINETUNE": "full"}))
        with self.assertRaises(SystemExit):
            finetune_mode({"HF_FINETUNE": "qlora"})


if __name__ == "__main__":
    unittest.main()
