"""Where hf-local serving time goes: one script for a lent GPU (or ``--tiny`` on a CPU, as a rehearsal).

    python3 -m integrations.hf.profile_serving [--size 0.6b] [--out profile.json]

The first GPU run served 16 eight-token replies in 8–12 s (integrations/hf/README.md, "GPU figures"). This
measures, on a random Qwen3-shaped model with the LoRA adapters the backend serves with:
- the first call (CUDA warm-up) apart from the steady state;
- ``generate`` directly (no HTTP) at batch 1, 8 and 16: the model's forwards (synchronised) against the rest
  (sampling on the CPU, copies), for the serving adapter and for the frozen base;
- 16 concurrent chat completions over HTTP, as a step's lease asks for them, idle and while a training
  thread runs forwards and backwards on the trained adapter under the same lock;
- a torch.profiler table of one batch.
Each part prints one JSON line as it finishes.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import torch

from . import generate as gen_mod
from .device_check import PROBE, post
from .generate import SamplingParams
from .model import TRAIN
from .train import serve


def sync(model: Any) -> None:
    if model.device.type == "cuda":
        torch.cuda.synchronize()


class ForwardClock:
    """Wraps the model's start/advance, timing each forward to completion."""

    def __init__(self, model: Any):
        self.model, self.seconds, self.calls = model, 0.0, 0
        self._start, self._advance = model.start, model.advance
        model.start = self._wrap(self._start)
        model.advance = self._wrap(self._advance)

    def _wrap(self, fn: Any) -> Any:
        def run(*a: Any, **kw: Any) -> Any:
            sync(self.model)
            t = time.perf_counter()
            out = fn(*a, **kw)
            sync(self.model)
            self.seconds += time.perf_counter() - t
            self.calls += 1
            return out

        return run

    def restore(self) -> None:
        self.model.start, self.model.advance = self._start, self._advance


def direct(model: Any, batch: int, tokens: int, adapter: str | None, repeats: int) -> dict[str, Any]:
    prompt = model.encode(model.render(PROBE))
    params = [SamplingParams(max_tokens=tokens) for _ in range(batch)]
    clock = ForwardClock(model)
    t = time.perf_counter()
    for _ in range(repeats):
        gen_mod.generate(model, [prompt] * batch, params, adapter)
    sync(model)
    total = time.perf_counter() - t
    clock.restore()
    n = repeats * batch * tokens
    return {"batch": batch, "tokens": tokens, "adapter": adapter or "base", "seconds_per_batch": total / repeats,
            "forward_share": clock.seconds / total, "ms_per_forward": 1000 * clock.seconds / max(clock.calls, 1),
            "ms_per_step_outside_forward": 1000 * (total - clock.seconds) / max(clock.calls, 1), "tokens_per_s": n / total}


def pick_costs(model: Any) -> dict[str, float]:
    """One decode step's pick at batch 16 over the full vocabulary: on the device (``_pick_rows``, what serving
    does) against the whole logits copied to the host and sampled row by row there (the first GPU run's way)."""
    logits = torch.randn(16, model.vocab_size, device=model.device)
    params, none, live = [SamplingParams()] * 16, [None] * 16, [False] * 16

    def host() -> None:
        logp, rows = torch.log_softmax(logits.float(), -1).cpu(), logits.float().cpu()
        for i in range(16):
            float(logp[i, gen_mod._pick(rows[i], params[i], None)])

    out = {}
    for name, fn in (("device", lambda: gen_mod._pick_rows(logits, params, none, live)), ("host", host)):
        fn()
        sync(model)
        t = time.perf_counter()
        for _ in range(10):
            fn()
        sync(model)
        out[name] = 100 * (time.perf_counter() - t)
    return out


def burst(url: str, n: int, tokens: int) -> float:
    t = time.perf_counter()
    with ThreadPoolExecutor(max_workers=n) as pool:
        list(pool.map(lambda _: post(f"{url}/chat/completions", {"model": "policy", "messages": PROBE, "max_tokens": tokens, "temperature": 1.0}), range(n)))
    return time.perf_counter() - t


class TrainingLoad:
    """Forwards and backwards on the trained adapter (batch 16 × 96 tokens) until stopped, as a trainer's step does."""

    def __init__(self, model: Any):
        self.model = model
        # each step's (start, end): how many ran beside a burst is counted by overlap, not by completions inside it,
        # which a short burst on a loaded machine can miss while a step is running beside it the whole time
        self.spans: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        ids = torch.randint(0, 256, (16, 96), device=self.model.device)
        mask = torch.ones_like(ids)
        while not self._stop.is_set():
            start = time.perf_counter()
            with torch.enable_grad():
                logits = self.model.logits(ids, mask, TRAIN)
                loss = torch.log_softmax(logits.float(), -1)[:, :-1].gather(-1, ids[:, 1:, None]).mean()
                self.model.backward(loss)
            for p in self.model.trainable_parameters():
                p.grad = None
            self.spans.append((start, time.perf_counter()))

    @property
    def steps(self) -> int:
        """Steps finished so far."""
        return len(self.spans)

    def steps_overlapping(self, t0: float, t1: float) -> int:
        """Steps that ran at some time in [t0, t1]: those finished that overlap it, and the one still running (the
        thread steps back to back, so it is running while alive; a thread that died counts nothing more)."""
        spans = list(self.spans)
        done = sum(1 for s, e in spans if s < t1 and e > t0)
        return done + (1 if self._thread.is_alive() and not self._stop.is_set() else 0)

    def __enter__(self) -> "TrainingLoad":
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._stop.set()
        self._thread.join(timeout=600)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--size", default="0.6b")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="hf-profile.json")
    args = ap.parse_args(argv)
    report: dict[str, Any] = {}

    def emit(key: str, value: Any) -> None:
        report[key] = value
        print(json.dumps({key: value}), flush=True)

    t = time.perf_counter()
    if args.tiny:
        from .tiny import TinyChatModel

        model: Any = TinyChatModel(seed=0, rank=16, alpha=32)
    else:
        from .hf_model import build_random

        model = build_random(args.size, rank=16, alpha=32)
    emit("build_s", time.perf_counter() - t)
    server, slots, batcher = serve(model, {"HF_MAX_BATCH": "16"}, "policy")
    try:
        with slots.reading() as (adapter, _):
            t = time.perf_counter()
            direct(model, 1, 8, adapter, 1)
            emit("first_call_s", time.perf_counter() - t)
            for batch in (1, 8, 16):
                emit(f"direct_b{batch}", direct(model, batch, 16, adapter, args.repeats))
        emit("direct_b16_base", direct(model, 16, 16, None, args.repeats))
        emit("pick_ms_b16", pick_costs(model))
        burst(server.url, 2, 4)
        emit("http_16x8_idle_s", burst(server.url, 16, 8))
        with TrainingLoad(model) as load:
            while load.steps < 1:
                time.sleep(0.05)
            t0 = time.perf_counter()
            emit("http_16x8_training_s", burst(server.url, 16, 8))
            emit("training_steps_during_burst", load.steps_overlapping(t0, time.perf_counter()))
        if model.device.type == "cuda":
            emit("peak_gpu_memory_gb", torch.cuda.max_memory_allocated() / 1024**3)
        from torch.profiler import ProfilerActivity, profile

        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if model.device.type == "cuda" else [])
        with slots.reading() as (adapter, _), profile(activities=acts) as prof:
            direct(model, 8, 16, adapter, 1)
        table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25)
        print(table, flush=True)
        report["profile_table"] = table
    finally:
        server.close()
        batcher.close()
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
