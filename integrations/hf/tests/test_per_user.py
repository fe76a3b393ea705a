"""hf-local per user: PEFT folders held to the contract extracted from huggingface/peft, and one adapter per user
trained from that user's leases only (a user's version is exactly what training on their batches alone gives)."""

import json
import os
import struct
import tempfile
import unittest

try:
    import torch
except ImportError:
    torch = None

needs_torch = unittest.skipUnless(torch is not None, "needs torch (Debian: apt-get install python3-torch)")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
with open(os.path.join(ROOT, "tests", "fixtures", "peft", "lora_adapter.json"), encoding="utf-8") as f:
    PEFT = json.load(f)
MESSAGES = [{"role": "user", "content": "hi"}]


def sample(user, ids, reward, i):
    return {"sampleId": f"{user}-{i}", "endUserId": user, "messages": MESSAGES, "responseTokenIds": ids, "rolloutLogprobs": [-2.0] * len(ids), "reward": reward, "kind": "RL"}


MAYA = [sample("maya", [111, 107, 257], 1.0, 0), sample("maya", [110, 257], -1.0, 1)]
LEO = [sample("leo", [45, 32, 97, 257], 1.0, 0), sample("leo", [98, 257], -1.0, 1)]
MAYA_2 = [sample("maya", [121, 101, 115, 257], 1.0, 2)]


def file_bytes(folder):
    out = {}
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "rb") as f:
            out[name] = f.read()
    return out


class FakeBook:
    """LeaseBook's surface: the given leases in order, then the run stops; acknowledgements recorded."""

    def __init__(self, leases):
        self.leases = list(leases)
        self.acks = []

    def acquire(self, rollout_id, size, poll_s=2.0, min_size=None):
        from integrations.slime.leases import RunStopped

        if not self.leases:
            raise RunStopped("done")
        return self.leases.pop(0)

    def acknowledge_through(self, last, metrics=None, checkpoint_path=None, duration_ms=None):
        self.acks.append((last, checkpoint_path))


@needs_torch
class PeftFolderTest(unittest.TestCase):
    def test_safetensors_bytes_follow_the_format(self):
        from integrations.hf.peft_folder import load_safetensors, save_safetensors

        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.safetensors")
            save_safetensors({"x": torch.tensor([1.0, -2.0])}, path, PEFT["safetensorsMetadata"])
            with open(path, "rb") as f:
                blob = f.read()
        (n,) = struct.unpack("<Q", blob[:8])
        self.assertEqual(n % 8, 0)
        header = json.loads(blob[8 : 8 + n])
        self.assertEqual(header, {"__metadata__": {"format": "pt"}, "x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})
        self.assertEqual(blob[8 + n :], struct.pack("<2f", 1.0, -2.0))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "y.safetensors")
            save_safetensors({"b": torch.tensor([[0.5]], dtype=torch.bfloat16), "a": torch.arange(6.0).reshape(2, 3)}, path, {})
            tensors, meta = load_safetensors(path)
        self.assertEqual(meta, {})
        self.assertTrue(torch.equal(tensors["a"], torch.arange(6.0).reshape(2, 3)))
        self.assertEqual((tensors["b"].dtype, float(tensors["b"][0, 0])), (torch.bfloat16, 0.5))

    def test_a_users_folder_is_what_peft_writes_and_reads(self):
        from integrations.hf.peft_folder import load_safetensors, lora_config, write_peft_folder
        from integrations.hf.tiny import TinyChatModel

        model = TinyChatModel(seed=3)
        with torch.no_grad():
            for p in model.trainable_parameters():
                p.normal_(0, 0.05)
        weights, targets = model.lora_state("trainer")
        with tempfile.TemporaryDirectory() as d:
            write_peft_folder(d, weights, lora_config("tiny", 8, 16, targets))
            self.assertEqual(sorted(os.listdir(d)), sorted([PEFT["files"]["CONFIG_NAME"], PEFT["files"]["SAFETENSORS_WEIGHTS_NAME"]]))
            with open(os.path.join(d, PEFT["files"]["CONFIG_NAME"]), encoding="utf-8") as f:
                config = json.load(f)
            tensors, meta = load_safetensors(os.path.join(d, PEFT["files"]["SAFETENSORS_WEIGHTS_NAME"]))
        # Every config key is a LoraConfig / PeftConfig field; the values a loader needs are PEFT's own spellings.
        self.assertEqual(set(config) - set(PEFT["configFields"]), set())
        self.assertEqual((config["peft_type"], config["task_type"]), (PEFT["peftTypeLora"], PEFT["taskTypeCausalLm"]))
        self.assertEqual((config["r"], config["lora_alpha"], config["target_modules"]), (8, 16, ["down", "k", "o", "q", "up", "v"]))
        self.assertEqual(meta, PEFT["safetensorsMetadata"])
        # Keys: the PeftModel prefix, then the module, then lora_A/lora_B with the adapter's name dropped.
        saved = PEFT["adapterNameRemoval"]["saved"]  # e.g. model.q_proj.lora_A.weight
        suffix_a = saved[saved.index(".lora_A") :]
        self.assertEqual(suffix_a, ".lora_A.weight")
        self.assertEqual(len(tensors), 2 * 2 * 6)  # 2 blocks × 6 projections × (A, B)
        for key, t in tensors.items():
            self.assertTrue(key.startswith(PEFT["keyPrefix"]), key)
            self.assertNotIn(".trainer", key)
            module, which = key[len(PEFT["keyPrefix"]) :].rsplit(".lora_", 1)
            layer = dict(model.net.named_modules())[module]
            # PEFT's lora_A is Linear(in, r) and lora_B Linear(r, out): weights [r, in] and [out, r].
            if which == "A.weight":
                self.assertEqual(list(t.shape), [8, layer.base.in_features])
                self.assertTrue(torch.equal(t, layer.lora_a["trainer"].detach()))
            else:
                self.assertEqual(which, "B.weight")
                self.assertEqual(list(t.shape), [layer.base.out_features, 8])
                self.assertTrue(torch.equal(t, layer.lora_b["trainer"].detach()))

    def test_read_peft_folder_is_the_writers_inverse_and_loads_into_an_adapter(self):
        from integrations.hf.peft_folder import lora_config, read_peft_folder, write_peft_folder
        from integrations.hf.tiny import TinyChatModel

        model = TinyChatModel(seed=3)
        with torch.no_grad():
            for p in model.trainable_parameters():
                p.normal_(0, 0.05)
        weights, targets = model.lora_state("trainer")
        config = lora_config("tiny", 8, 16, targets)
        with tempfile.TemporaryDirectory() as d:
            write_peft_folder(d, weights, config)
            # The files the reader opens are PEFT's names, from the fixture.
            self.assertTrue(os.path.isfile(os.path.join(d, PEFT["files"]["SAFETENSORS_WEIGHTS_NAME"])))
            read, read_config = read_peft_folder(d)
            with self.assertRaises(FileExistsError):  # the per-user writer's guard: an existing folder is refused
                write_peft_folder(d, weights, config, exist_ok=False)
            with open(os.path.join(d, PEFT["files"]["CONFIG_NAME"]), "w", encoding="utf-8") as f:
                json.dump({**config, "peft_type": "PREFIX_TUNING"}, f)
            with self.assertRaisesRegex(ValueError, "not a LoRA adapter"):
                read_peft_folder(d)
        self.assertEqual(read_config, config)
        self.assertEqual(read_config["peft_type"], PEFT["peftTypeLora"])
        self.assertEqual(sorted(read), sorted(weights))
        for k in weights:
            self.assertTrue(torch.equal(read[k], weights[k]), k)
        # Into another model's adapter (a fresh one: B = 0): its weights become the folder's exactly.
        other = TinyChatModel(seed=4)
        other.load_lora_state("trainer", read)
        loaded, _ = other.lora_state("trainer")
        for k in weights:
            self.assertTrue(torch.equal(loaded[k], weights[k]), k)
        # A folder of other keys or another rank is refused, and nothing is copied.
        before = [p.detach().clone() for p in other.trainable_parameters()]
        with self.assertRaisesRegex(ValueError, "keys differ"):
            other.load_lora_state("trainer", {k: v for k, v in read.items() if ".0." not in k})
        with self.assertRaisesRegex(ValueError, "shape"):
            other.load_lora_state("trainer", {k: (v[:4] if k.endswith("lora_A.weight") else v) for k, v in read.items()})
        for p, b in zip(other.trainable_parameters(), before):
            self.assertTrue(torch.equal(p, b))


@needs_torch
class PerUserTrainingTest(unittest.TestCase):
    def trainer(self):
        from integrations.hf.model import AdapterSlots
        from integrations.hf.tiny import TinyChatModel
        from integrations.hf.train import TrainConfig, Trainer

        model = TinyChatModel(seed=5)
        return Trainer(model, AdapterSlots(model), TrainConfig(method="grpo", lr=1e-2))

    def run_leases(self, leases, save_dir):
        from integrations.hf.per_user import UserAdapters, train_per_user

        book = FakeBook(leases)
        steps = train_per_user(UserAdapters(self.trainer()), book, "run-1", save_dir, "tiny", 8, 16)
        return steps, book

    def folder(self, path):
        from integrations.hf.peft_folder import load_safetensors

        return load_safetensors(os.path.join(path, PEFT["files"]["SAFETENSORS_WEIGHTS_NAME"]))[0]

    def test_each_user_trains_their_own_adapter_from_their_batches_only(self):
        from integrations.hf.per_user import user_adapter_dir

        with tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as alone:
            steps, book = self.run_leases(
                [{"endUserId": "maya", "samples": MAYA}, {"endUserId": "leo", "samples": LEO}, {"endUserId": "maya", "samples": MAYA_2}], d
            )
            self.assertEqual(steps, 3)
            paths = [user_adapter_dir(d, "run-1", u, v) for u, v in (("maya", 1), ("leo", 1), ("maya", 2))]
            self.assertEqual(book.acks, list(zip(range(3), paths)))
            self.assertNotIn("maya", paths[0].replace(d, ""))  # the folder names a hash, not the user
            maya1, leo1, maya2 = (self.folder(p) for p in paths)
            # Leo's version is exactly what training on Leo's batch alone gives (fresh adapter, fresh optimizer):
            # Maya's step before it left nothing in his adapter.
            self.run_leases([{"endUserId": "leo", "samples": LEO}], alone)
            leo_alone = self.folder(user_adapter_dir(alone, "run-1", "leo", 1))
            # Maya's second version continues her first (her weights and Adam moments), not Leo's.
            self.run_leases([{"endUserId": "maya", "samples": MAYA}, {"endUserId": "maya", "samples": MAYA_2}], alone)
            maya2_alone = self.folder(user_adapter_dir(alone, "run-1", "maya", 2))
        for k in leo1:
            self.assertTrue(torch.equal(leo1[k], leo_alone[k]), k)
            self.assertTrue(torch.equal(maya2[k], maya2_alone[k]), k)
        self.assertTrue(any(not torch.equal(maya1[k], leo1[k]) for k in leo1))
        self.assertTrue(any(not torch.equal(maya1[k], maya2[k]) for k in maya1))

    def test_a_restarted_trainer_resumes_a_user_from_their_served_folder_and_never_overwrites_one(self):
        from integrations.hf.per_user import UserAdapters, train_per_user, user_adapter_dir

        with tempfile.TemporaryDirectory() as d:
            self.run_leases([{"endUserId": "maya", "samples": MAYA}, {"endUserId": "maya", "samples": MAYA_2}], d)
            v1, v2 = (user_adapter_dir(d, "run-1", "maya", v) for v in (1, 2))
            saved = {p: file_bytes(p) for p in (v1, v2)}
            # The console serves v2 and holds a candidate v3 (another folder, or rolled back): the new process
            # starts with no user in memory and learns where Maya stands from the lease.
            state = {"served": {"version": 2, "path": v2}, "latestVersion": 3}
            restarted = UserAdapters(self.trainer())
            self.assertEqual(restarted.resume("maya", state), 2)
            resumed, _ = restarted.model.lora_state("trainer")
            served = self.folder(v2)
            for k in served:
                self.assertTrue(torch.equal(resumed[k], served[k]), k)

            steps, book = self.run_leases([{"endUserId": "maya", "samples": MAYA, "adapter": state}], d)
            v4 = user_adapter_dir(d, "run-1", "maya", 4)
            self.assertEqual(book.acks, [(0, v4)])
            after = self.folder(v4)
            # v4 is one step from v2's weights and its Adam moments (saved beside the folder: a PEFT folder holds
            # none)...
            from integrations.hf.moments import load_moments

            expected = self.trainer()
            expected.model.load_lora_state("trainer", served)
            expected.optimizer.load_state_dict(load_moments(v2))
            expected.step(MAYA)
            want, _ = expected.model.lora_state("trainer")
            for k in want:
                self.assertTrue(torch.equal(after[k], want[k]), k)
            # ...which differs from the step fresh moments would have taken.
            fresh = self.trainer()
            fresh.model.load_lora_state("trainer", served)
            fresh.step(MAYA)
            fresh_weights, _ = fresh.model.lora_state("trainer")
            self.assertTrue(any(not torch.equal(after[k], fresh_weights[k]) for k in after))
            # ...not a step from the fresh adapter (that is v1: MAYA on the fresh adapter).
            self.assertTrue(any(not torch.equal(after[k], self.folder(v1)[k]) for k in after))
            # The earlier folders are untouched, byte for byte.
            self.assertEqual(saved, {p: file_bytes(p) for p in (v1, v2)})

            # A folder already at the next version's name (written by a process that died before acknowledging it:
            # the console's latest is 4) is kept as it is, and the version takes the next free name; the run's steps
            # continue past its last recorded one (3 here), so the acknowledgement is not refused as recorded.
            v5, v6 = (user_adapter_dir(d, "run-1", "maya", v) for v in (5, 6))
            os.makedirs(v5)
            with open(os.path.join(v5, "marker"), "w") as f:
                f.write("keep")
            book = FakeBook([{"endUserId": "maya", "samples": MAYA, "adapter": {**state, "latestVersion": 4}}])
            with self.assertLogs("openclaw.hf.per_user", "WARNING") as logged:
                self.assertEqual(train_per_user(UserAdapters(self.trainer()), book, "run-1", d, "tiny", 8, 16, start=3), 1)
            self.assertIn("never acknowledged", logged.output[0])
            self.assertEqual(book.acks, [(3, v6)])
            self.assertEqual(os.listdir(v5), ["marker"])
            self.assertIn(PEFT["files"]["CONFIG_NAME"], os.listdir(v6))
            # The writer itself still never writes into an existing folder.
            with self.assertRaises(FileExistsError):
                restarted.save("maya", v6, "tiny", 8, 16)

    def test_refuses_a_batch_that_is_not_one_users(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(ValueError, "'leo-0' is not 'maya'"):
                self.run_leases([{"endUserId": "maya", "samples": MAYA + LEO[:1]}], d)
            with self.assertRaisesRegex(SystemExit, "no end user"):
                self.run_leases([{"endUserId": None, "samples": MAYA}], d)
            self.assertEqual(os.listdir(d), [])


if __name__ == "__main__":
    unittest.main()
