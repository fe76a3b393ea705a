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



class StepBook:
    """LeaseBook's surface for the shared loop: one lease per given batch, then the run stops; acknowledgements kept."""

    def __init__(self, batches):
        self.batches = list(batches)
        self.acks = []

    def acquire(self, rollout_id, size, poll_s=2.0):
        from integrations.slime.leases import RunStopped

        if not self.batches:
            raise RunStopped("done")
        return {"leaseId": f"l{rollout_id}", "samples": self.batches.pop(0)}

    def acknowledge_through(self, last, metrics=None, checkpoint_path=None, duration_ms=None):
        self.acks.append((last, checkpoint_path))


@needs_torch
class RestartTest(unittest.TestCase):
    """A restarted hf-local process of a run that already trained: steps numbered past the run's last recorded one
    (the console refuses a step twice), weights resumed from the run's newest checkpoint into training and serving."""

    BATCH = [{"messages": MESSAGES, "responseTokenIds": [111, 107, 257], "rolloutLogprobs": [-2.0] * 3, "reward": 1.0, "kind": "RL"}]

    def trainer(self):
        from integrations.hf.model import AdapterSlots
        from integrations.hf.tiny import TinyChatModel
        from integrations.hf.train import TrainConfig, Trainer

        model = TinyChatModel(seed=4)
        return Trainer(model, AdapterSlots(model), TrainConfig(method="grpo", lr=1e-2))

    def test_resumes_the_runs_newest_checkpoint_and_numbers_past_its_last_step(self):
        import os
        import tempfile

        from integrations.hf.train import checkpoint_dir, resume, train
        from integrations.slime.leases import resume_point

        with tempfile.TemporaryDirectory() as d:
            first = self.trainer()
            self.assertEqual(train(first, StepBook([self.BATCH]), "run-1", d), 1)
            step1 = checkpoint_dir(d, "run-1", 1)
            trained = [p.detach().clone() for p in first.model.trainable_parameters()]

            # The console's answer to the new process's first report: one step recorded, its checkpoint.
            start, checkpoint = resume_point({"lastStep": 1, "resume": {"policyVersion": 1, "step": 1, "checkpointPath": step1}})
            again = self.trainer()
            resume(again, start, checkpoint)
            for p, q in zip(again.model.trainable_parameters(), trained):
                self.assertTrue(torch.equal(p, q))
            # The Adam moments too (saved beside the checkpoint's folder, not in it).
            self.assertTrue(os.path.exists(step1 + ".adam.pt"))
            saved, resumed = first.optimizer.state_dict()["state"], again.optimizer.state_dict()["state"]
            self.assertEqual(sorted(saved), sorted(resumed))
            for i in saved:
                self.assertTrue(torch.equal(saved[i]["exp_avg"], resumed[i]["exp_avg"]))
                self.assertTrue(torch.equal(saved[i]["exp_avg_sq"], resumed[i]["exp_avg_sq"]))
            self.assertEqual((again.slots.version, again.slots.checkpoint), (1, step1))
            # Serving answers from the resumed weights, not the base's.
            with again.slots.reading() as (slot, version):
                served = again.model.logits(torch.tensor([[1, 2, 3]]), torch.ones(1, 3, dtype=torch.long), slot)
            trained_logits = first.model.logits(torch.tensor([[1, 2, 3]]), torch.ones(1, 3, dtype=torch.long), "trainer")
            self.assertTrue(torch.allclose(served, trained_logits))

            book = StepBook([self.BATCH])
            self.assertEqual(train(again, book, "run-1", d, start=start), 1)
            self.assertEqual(book.acks, [(1, checkpoint_dir(d, "run-1", 2))])  # acknowledged as step 2
            self.assertTrue(os.path.exists(os.path.join(checkpoint_dir(d, "run-1", 2), "adapter.pt")))

            # A checkpoint it cannot read stops it, rather than training on from the base under later step numbers.
            with self.assertRaisesRegex(RuntimeError, "cannot resume"):
                resume(self.trainer(), 2, os.path.join(d, "missing"))


@needs_torch
class HintCandidatesTest(unittest.TestCase):
    """token_optimal on hf-local: the step distils toward the teacher select_teacher picks among the candidates."""

    def test_the_step_distils_toward_the_selected_candidate(self):
        from integrations.hf import losses
        from integrations.hf.chat import hinted_messages, normalize
        from integrations.hf.model import AdapterSlots
        from integrations.hf.tiny import TinyChatModel
        from integrations.hf.train import TrainConfig, Trainer, prepare, response_logp

        model = TinyChatModel(seed=4)
        with torch.no_grad():
            for p in model.trainable_parameters():
                p.normal_(0, 0.05)
        hints = ["Answer in one word.", "Answer in French, please, and keep it brief."]
        ids = [111, 107, 257]
        item = {
            "messages": MESSAGES, "responseTokenIds": ids, "rolloutLogprobs": [-2.0] * 3, "teacherLogprobs": [-1.0] * 3,
            "reward": 0.0, "kind": "OPD", "hint": hints[0], "hintCandidates": hints,
        }
        cfg = TrainConfig(method="opd", estimator="full", micro_batch=1, grad_clip=0, hint_selection="token_optimal", topk=8)
        prompts = [model.encode(model.render(hinted_messages(normalize(MESSAGES), h), None, True)) for h in hints]
        self.assertEqual(prepare(model, [item], cfg)[0].teacher_prompts, prompts)
        # Not the judge's shortest first (a reviewer's hint), or shortest selection: one teacher.
        self.assertIsNone(prepare(model, [{**item, "hint": hints[1]}], cfg)[0].teacher_prompts)
        self.assertIsNone(prepare(model, [item], TrainConfig(method="opd", estimator="full", hint_selection="shortest"))[0].teacher_prompts)

        trainer = Trainer(model, AdapterSlots(model), cfg)
        captured = {}
        trainer.optimizer.step = lambda: captured.setdefault("g", [p.grad.clone() for p in model.trainable_parameters()])
        trainer.step([item])

        prompt = model.encode(model.render(MESSAGES))
        new = response_logp(model, [prompt + ids], [3], "trainer", full=True)[0]
        with torch.no_grad():
            teachers = response_logp(model, [q + ids for q in prompts], [3, 3], None, full=True)
        teacher = losses.select_teacher(new, teachers, 8, "token_optimal")
        # Here the overlaps of the top-8 sets are 3, 0, 2 (candidate 0) and 3, 1, 1 (candidate 1): token 1 takes
        # candidate 1, the others candidate 0, so neither single teacher would give this step.
        self.assertTrue(torch.equal(teacher, torch.stack([teachers[0][0], teachers[1][1], teachers[0][2]])))
        for p in model.trainable_parameters():
            p.grad = None
        losses.full_kl(new, teacher).mean().backward()
        for a, b in zip(captured["g"], [p.grad for p in model.trainable_parameters()]):
            self.assertTrue(torch.allclose(a, b, atol=1e-6))

if __name__ == "__main__":
    unittest.main()
