"""Sampling on any ``ChatModel``, and the batching queue serving requests go through.

Each generated token comes with its log-prob under the weights that sampled it (``log_softmax`` of the raw
logits, temperature 1: what the trainer recomputes as π_old), so the proxy records exactly what was sampled.
Requests arriving while a batch runs wait for the next one; a batch runs on one adapter (the serving copy it
pinned, or the frozen base), so every reply comes from one weight version start to end.
"""

from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from .model import AdapterSlots, ChatModel

log = logging.getLogger("openclaw.hf.generate")


@dataclass
class SamplingParams:
    max_tokens: int = 256
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    seed: int | None = None
    stop_ids: frozenset[int] = frozenset()


@dataclass
class Generation:
    ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    finish_reason: str = "length"
    version: int = 0


OnToken = Callable[[int, float], None]


def _pick(logits: torch.Tensor, p: SamplingParams, gen: torch.Generator | None) -> int:
    if p.temperature <= 0:
        return int(torch.argmax(logits))
    scaled = logits.float() / p.temperature
    if p.top_k > 0:
        kth = torch.topk(scaled, min(p.top_k, scaled.numel())).values[-1]
        scaled = scaled.masked_fill(scaled < kth, float("-inf"))
    probs = scaled.softmax(-1)
    if p.top_p < 1.0:
        sorted_p, order = probs.sort(descending=True)
        keep = sorted_p.cumsum(-1) - sorted_p < p.top_p
        probs = torch.zeros_like(probs).scatter(0, order[keep], sorted_p[keep])
    return int(torch.multinomial(probs, 1, generator=gen))


def _pick_rows(logits: torch.Tensor, params: list[SamplingParams], gens: list[torch.Generator | None], done: list[bool]) -> tuple[list[int], list[float]]:
    """One decode step's tokens and their log-probs (temperature 1, what the trainer recomputes), picked on the
    model's device: greedy rows together, rows sampled at a plain temperature together, and only the chosen ids
    and log-probs cross to the host, in one copy (the first GPU run copied the whole [batch, vocabulary] logits
    to the host twice per token and sampled row by row there). A seeded request keeps its CPU generator, so a
    seed gives the same reply on any device; top-k/top-p rows use ``_pick`` on their own row."""
    device = logits.device
    logp = torch.log_softmax(logits.float(), dim=-1)
    chosen = torch.zeros(len(params), dtype=torch.long, device=device)
    live = [i for i in range(len(params)) if not done[i]]
    greedy = [i for i in live if gens[i] is None and params[i].temperature <= 0]
    plain = [i for i in live if gens[i] is None and params[i].temperature > 0 and params[i].top_k <= 0 and params[i].top_p >= 1.0]
    if greedy:
        rows = torch.tensor(greedy, device=device)
        chosen[rows] = logits[rows].argmax(-1)
    if plain:
        rows = torch.tensor(plain, device=device)
        temps = torch.tensor([params[i].temperature for i in plain], device=device)[:, None]
        chosen[rows] = torch.multinomial(torch.softmax(logits[rows].float() / temps, dim=-1), 1)[:, 0]
    batched = set(greedy) | set(plain)
    for i in live:
        if i not in batched:
            chosen[i] = _pick(logits[i].float().cpu() if gens[i] is not None else logits[i], params[i], gens[i])
    picked = torch.stack([chosen.double(), logp.gather(-1, chosen[:, None])[:, 0].double()]).cpu()
    return [int(t) for t in picked[0].tolist()], picked[1].tolist()


@torch.no_grad()
def generate(
    model: ChatModel,
    prompts: list[list[int]],
    params: list[SamplingParams],
    adapter: str | None,
    on_token: list[OnToken | None] | None = None,
) -> list[Generation]:
    """Batched sampling: prompts left-padded, one forward per step for the whole batch."""
    pad = getattr(model, "pad_id", 0)
    width = max(len(p) for p in prompts)
    ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts], device=model.device)
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=model.device)
    gens = []
    for p in params:
        g = None
        if p.seed is not None:
            g = torch.Generator(device="cpu")
            g.manual_seed(p.seed)
        gens.append(g)
    out = [Generation() for _ in prompts]
    done = [False] * len(prompts)
    logits, state = model.start(ids, mask, adapter)
    for _ in range(max(p.max_tokens for p in params)):
        toks, lps = _pick_rows(logits, params, gens, done)
        nxt = []
        for i, p in enumerate(params):
            if done[i]:
                nxt.append(pad)
                continue
            tok, lp = toks[i], lps[i]
            out[i].ids.append(tok)
            out[i].logprobs.append(lp)
            if on_token and on_token[i]:
                on_token[i](tok, lp)
            if tok in p.stop_ids:
                out[i].finish_reason, done[i] = "stop", True
            elif len(out[i].ids) >= p.max_tokens:
                done[i] = True
            nxt.append(tok)
        if all(done):
            break
        logits, state = model.advance(state, torch.tensor(nxt, device=model.device))
    return out


@dataclass
class _Request:
    prompt: list[int]
    params: SamplingParams
    base: bool
    on_token: OnToken | None
    future: Future = field(default_factory=Future)


class BatchQueue:
    """One worker thread turns waiting requests into batches (policy requests on the pinned serving copy,
    base requests on the frozen base) of at most ``max_batch``."""

    def __init__(self, model: ChatModel, slots: AdapterSlots, max_batch: int = 8):
        self.model = model
        self.slots = slots
        self.max_batch = max_batch
        self._q: queue.Queue[_Request | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="hf-batcher", daemon=True)
        self._held: list[_Request] = []
        self.batches = 0
        self.tokens = 0

    def start(self) -> "BatchQueue":
        self._thread.start()
        return self

    def close(self) -> None:
        self._q.put(None)
        self._thread.join(timeout=30)

    def submit(self, prompt: list[int], params: SamplingParams, base: bool = False, on_token: OnToken | None = None) -> Future:
        req = _Request(prompt, params, base, on_token)
        self._q.put(req)
        return req.future

    def _take(self) -> list[_Request] | None:
        first = self._held.pop(0) if self._held else self._q.get()
        if first is None:
            return None
        batch = [first]
        while len(batch) < self.max_batch:
            try:
                nxt = self._q.get_nowait()
            except queue.Empty:
                break
            if nxt is None:
                self._q.put(None)
                break
            (batch if nxt.base == first.base else self._held).append(nxt)
        return batch

    def _run(self) -> None:
        while True:
            batch = self._take()
            if batch is None:
                return
            try:
                if batch[0].base:
                    results = generate(self.model, [r.prompt for r in batch], [r.params for r in batch], None, [r.on_token for r in batch])
                else:
                    with self.slots.reading() as (adapter, version):
                        results = generate(self.model, [r.prompt for r in batch], [r.params for r in batch], adapter, [r.on_token for r in batch])
                        for g in results:
                            g.version = version
                self.batches += 1
                for r, g in zip(batch, results):
                    self.tokens += len(g.ids)
                    r.future.set_result(g)
            except Exception as err:  # noqa: BLE001 (each waiting request gets the error, the worker lives on)
                log.exception("generation failed")
                for r in batch:
                    if not r.future.done():
                        r.future.set_exception(err)
