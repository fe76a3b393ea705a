"""The training step's reduction: micro-batches add up to slime's per-sample token mean over the whole batch."""

import unittest

try:
    import torch
except ImportError:
    torch = None

needs_torch = unittest.skipUnless(torch is not None, "needs torch (Debian: apt-get install python3-torch)")
MESSAGES = [{"role": "user", "content": "hi"}]


@needs_torch
class ReductionTest(unittest.TestCase):
    def grads(self, micro_batch, token_mean=False):
        from integrations.hf.model import AdapterSlots
        from integrations.hf.tiny import TinyChatModel
        from integrations.hf.train import TrainConfig, Trainer

        model = TinyChatModel(seed=4)
        with torch.no_grad():  # a non-zero adapter, so the ratio and the gradient are not trivial
            for p in model.trainable_parameters():
                p.normal_(0, 0.05)
        trainer = Trainer(model, AdapterSlots(model), TrainConfig(method="grpo", micro_batch=micro_batch, grad_clip=0, token_mean=token_mean))
        captured = {}
        trainer.optimizer.step = lambda: captured.setdefault("g", [p.grad.clone() for p in model.trainable_parameters()])
        items = [
            {"messages": MESSAGES, "responseTokenIds": ids, "rolloutLogprobs": [-2.0] * len(ids), "reward": r, "kind": "RL"}
            for ids, r in (([111, 107, 257], 1.0), ([110, 257], -1.0), ([121, 101, 115, 33, 257], 1.0))
        ]
        trainer.step(items)
        return model, items, captured["g"]

    def expected(self, model, items, token_mean):
        from integrations.hf import losses
        from integrations.hf.train import response_logp

        prompt = model.encode(model.render(MESSAGES))
        seqs = [prompt + it["responseTokenIds"] for it in items]
        ns = [len(it["responseTokenIds"]) for it in items]
        new = torch.cat(response_logp(model, seqs, ns, "trainer"))
        old = new.detach()
        adv = torch.cat([torch.full((n,), it["reward"]) for n, it in zip(ns, items)])
        pg, _ = losses.policy_loss(old - new, adv)
        masks = [torch.ones(n) for n in ns]
        loss = losses.token_mean(pg, masks) if token_mean else losses.sample_mean(pg, masks)
        for p in model.trainable_parameters():
            p.grad = None
        loss.backward()
        return [p.grad.clone() for p in model.trainable_parameters()]

    def test_micro_batches_add_up_to_slimes_reductions(self):
        for token_mean in (False, True):
            model, items, one = self.grads(1, token_mean)
            _, _, three = self.grads(3, token_mean)
            want = self.expected(model, items, token_mean)
            for a, b, c in zip(one, three, want):
                self.assertTrue(torch.allclose(a, c, atol=1e-6), token_mean)
                self.assertTrue(torch.allclose(b, c, atol=1e-6), token_mean)


if __name__ == "__main__":
    unittest.main()
