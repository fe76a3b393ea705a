"""The transformers + peft glue (hf_model.py) on a randomly initialised toy Qwen3 built offline. Skipped, and
reported as skipped, where transformers, tokenizers or peft are not importable (CI has only python3-torch)."""

import importlib.util
import unittest

HAVE = all(importlib.util.find_spec(m) for m in ("torch", "transformers", "tokenizers", "peft"))
needs_hf = unittest.skipUnless(HAVE, "needs transformers, tokenizers and peft (the GPU machine has them; CI does not)")

MESSAGES = [{"role": "user", "content": "hello"}]


@needs_hf
class HfGlueTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from integrations.hf.hf_model import build_random

        # Gradient checkpointing on, as in production: decoding must still use the KV cache.
        cls.model = build_random("toy", device="cpu", dtype="float32", rank=4, alpha=8, gradient_checkpointing=True)

    def test_template_and_tokenizer_round_trip(self):
        text = self.model.render(MESSAGES)
        self.assertTrue(text.endswith("<|im_start|>assistant\n"))
        ids = self.model.encode(text)
        self.assertEqual(self.model.decode(ids), text)
        self.assertIn(self.model.tokenizer.convert_tokens_to_ids("<|im_end|>"), self.model.eos_ids)

    def test_incremental_decoding_matches_the_full_forward_with_left_padding(self):
        import torch

        m = self.model
        a, b = m.encode(m.render(MESSAGES)), m.encode("hi")
        width = max(len(a), len(b))
        ids = torch.tensor([[m.pad_id] * (width - len(s)) + s for s in (a, b)])
        mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in (a, b)])
        last, state = m.start(ids, mask, None)
        nxt = torch.tensor([5, 6])
        step, _ = m.advance(state, nxt)
        full = m.logits(torch.cat([ids, nxt[:, None]], 1), torch.cat([mask, torch.ones(2, 1, dtype=mask.dtype)], 1), None)
        self.assertLess(float((full[:, -2] - last).abs().max()), 1e-4)
        self.assertLess(float((full[:, -1] - step).abs().max()), 1e-4)

    def test_training_moves_the_adapter_not_the_frozen_base_and_swaps_copy_it(self):
        import torch
        from integrations.hf.model import SERVE_ADAPTERS, TRAIN, AdapterSlots
        from integrations.hf.train import TrainConfig, Trainer, response_logp

        m = self.model
        slots = AdapterSlots(m)
        prompt = m.encode(m.render(MESSAGES))
        resp = m.encode("yes") + [min(m.eos_ids)]
        seq = [prompt + resp]
        with torch.no_grad():
            base0 = response_logp(m, seq, [len(resp)], None)[0]
            served0 = response_logp(m, seq, [len(resp)], SERVE_ADAPTERS[0])[0]
        self.assertLess(float((base0 - served0).abs().max()), 1e-5)  # LoRA B starts at zero
        trainer = Trainer(m, slots, TrainConfig(method="grpo", lr=1e-2))
        item = {"messages": MESSAGES, "responseTokenIds": resp, "rolloutLogprobs": base0.tolist(), "reward": 1.0, "kind": "RL"}
        for _ in range(3):
            trainer.step([item])
        slots.publish(1)
        with torch.no_grad():
            base1 = response_logp(m, seq, [len(resp)], None)[0]
            trained = response_logp(m, seq, [len(resp)], TRAIN)[0]
            with slots.reading() as (adapter, version):
                served1 = response_logp(m, seq, [len(resp)], adapter)[0]
        self.assertEqual(version, 1)
        self.assertLess(float((base1 - base0).abs().max()), 1e-6)
        self.assertGreater(float(trained.sum() - base0.sum()), 0)  # reward 1 pushed the sampled tokens up
        self.assertLess(float((served1 - trained).abs().max()), 1e-5)

    def test_a_base_forward_between_a_trained_forward_and_its_backward_keeps_the_gradient(self):
        # What an OPD step does: the student's forward on the trained adapter, the teacher's on the frozen base
        # (adapter layers disabled, and left disabled for the next base forward), then the student's backward.
        import torch
        from integrations.hf.model import TRAIN
        from integrations.hf.train import response_logp

        m = self.model
        seq = [m.encode(m.render(MESSAGES)) + m.encode("ok")]
        with torch.no_grad():
            base0 = response_logp(m, seq, [2], None)[0]
        with torch.enable_grad():
            student = response_logp(m, seq, [2], TRAIN)[0]
        with torch.no_grad():
            base1 = response_logp(m, seq, [2], None)[0]
            again = response_logp(m, seq, [2], None)[0]
        for p in m.trainable_parameters():
            p.grad = None
        m.backward(-student.sum())
        grads = [p.grad for p in m.trainable_parameters() if p.grad is not None]
        self.assertTrue(grads and any(float(g.abs().sum()) > 0 for g in grads))
        self.assertLess(float((base1 - base0).abs().max()), 1e-6)
        self.assertLess(float((again - base0).abs().max()), 1e-6)
        for p in m.trainable_parameters():
            p.grad = None

    def test_serving_copies_are_in_the_bases_dtype_and_the_trained_adapter_stays_fp32(self):
        import torch
        from integrations.hf.hf_model import build_random
        from integrations.hf.model import SERVE_ADAPTERS, TRAIN, AdapterSlots
        from integrations.hf.train import response_logp

        m = build_random("toy", device="cpu", dtype="bfloat16", rank=4, alpha=8)
        dtypes = {n: {p.dtype for k, p in m.peft.named_parameters() if f".{n}." in k} for n in (TRAIN, *SERVE_ADAPTERS)}
        self.assertEqual(dtypes[TRAIN], {torch.float32})
        for n in SERVE_ADAPTERS:
            self.assertEqual(dtypes[n], {torch.bfloat16})
        slots = AdapterSlots(m)
        with torch.no_grad():
            for p in m.trainable_parameters():
                p.add_(0.2 * torch.randn_like(p))
        slots.publish(1)
        prompt = m.encode(m.render(MESSAGES))
        resp = m.encode("yes")
        with torch.no_grad(), slots.reading() as (adapter, _):
            served = response_logp(m, [prompt + resp], [len(resp)], adapter)[0]
            trained = response_logp(m, [prompt + resp], [len(resp)], TRAIN)[0]
            base = response_logp(m, [prompt + resp], [len(resp)], None)[0]
        # The published copy serves the trained weights (bf16 rounding only), not the base's.
        self.assertGreater(float((trained - base).abs().max()), 1e-3)
        self.assertLess(float((served - trained).abs().max()), 0.05)

    def test_a_peft_folder_of_the_adapter_loads_back_into_another_models_adapter(self):
        import tempfile

        import torch
        from integrations.hf.hf_model import build_random
        from integrations.hf.model import TRAIN
        from integrations.hf.peft_folder import read_peft_folder

        # Two models of one seed (the same frozen base), not the class's: the other tests need its B = 0.
        m, other = (build_random("toy", device="cpu", dtype="float32", rank=4, alpha=8) for _ in range(2))
        with torch.no_grad():
            for p in m.trainable_parameters():
                p.add_(torch.randn_like(p) * 0.05)
        weights, _ = m.lora_state(TRAIN)
        with tempfile.TemporaryDirectory() as d:
            m.save_adapter(TRAIN, d)
            read, _ = read_peft_folder(d)
        other.load_lora_state(TRAIN, read)
        loaded, _ = other.lora_state(TRAIN)
        self.assertEqual(sorted(loaded), sorted(weights))
        for k in weights:
            self.assertTrue(torch.equal(loaded[k], weights[k]), k)
        ids = torch.tensor([m.encode(m.render(MESSAGES))])
        mask = torch.ones_like(ids)
        with torch.no_grad():
            self.assertLess(float((m.logits(ids, mask, TRAIN) - other.logits(ids, mask, TRAIN)).abs().max()), 1e-5)
        with self.assertRaisesRegex(ValueError, "keys differ"):
            other.load_lora_state(TRAIN, {k: v for k, v in read.items() if ".layers.0." not in k})


@needs_hf
class HfFullGlueTest(unittest.TestCase):
    """Full fine-tuning through transformers: four copies, the trained one moves, swaps copy it, the base stays,
    and a checkpoint folder loads back with AutoModelForCausalLM."""

    def test_training_moves_the_trained_copy_not_the_base_and_the_checkpoint_loads(self):
        import tempfile

        import torch
        from transformers import AutoModelForCausalLM
        from integrations.hf.hf_model import build_random
        from integrations.hf.model import TRAIN, AdapterSlots
        from integrations.hf.train import TrainConfig, Trainer, response_logp

        m = build_random("toy", device="cpu", dtype="float32", full=True, gradient_checkpointing=True)
        self.assertEqual({id(p) for p in m.trainable_parameters()}, {id(p) for p in m.copies[TRAIN].parameters()})
        slots = AdapterSlots(m)
        prompt = m.encode(m.render(MESSAGES))
        resp = m.encode("yes") + [min(m.eos_ids)]
        seq = [prompt + resp]
        with torch.no_grad():
            base0 = response_logp(m, seq, [len(resp)], None)[0]
        trainer = Trainer(m, slots, TrainConfig(method="grpo", lr=1e-3))
        item = {"messages": MESSAGES, "responseTokenIds": resp, "rolloutLogprobs": base0.tolist(), "reward": 1.0, "kind": "RL"}
        for _ in range(3):
            trainer.step([item])
        slots.publish(1)
        with torch.no_grad():
            base1 = response_logp(m, seq, [len(resp)], None)[0]
            trained = response_logp(m, seq, [len(resp)], TRAIN)[0]
            with slots.reading() as (adapter, version):
                served1 = response_logp(m, seq, [len(resp)], adapter)[0]
        self.assertEqual(version, 1)
        self.assertLess(float((base1 - base0).abs().max()), 1e-6)
        self.assertGreater(float(trained.sum() - base0.sum()), 0)
        self.assertLess(float((served1 - trained).abs().max()), 1e-5)
        with tempfile.TemporaryDirectory() as folder:
            m.save_adapter(TRAIN, folder)
            loaded = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
            ids = torch.tensor(seq)
            with torch.no_grad():
                logits = loaded(input_ids=ids, attention_mask=torch.ones_like(ids)).logits
                want = m.logits(ids, torch.ones_like(ids), TRAIN)
            self.assertLess(float((logits - want).abs().max()), 1e-4)


if __name__ == "__main__":
    unittest.main()
