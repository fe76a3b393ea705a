"""The ``tiny`` model: a small randomly initialised torch transformer behind the ``ChatModel`` interface, with a
byte tokenizer (ids 0–255 are bytes, then ChatML's special tokens) and ChatML as its template (``chat.py``).
The base is a function of its seed (and of the mode), so every process that builds it holds the same frozen
base. Runs on torch 1.13 on a CPU: it is what CI runs the server, the losses and the training loop on, end to end.

Two modes, as ``hf_model``: LoRA (each name of ``model.py`` is a low-rank delta on one shared frozen network) and
``full`` (each name is a whole copy of the network: the trained one, two serving copies and the frozen base).
"""

from __future__ import annotations

import copy
import json
import math
import os
from typing import Any, Mapping, Sequence

import torch
from torch import nn

from .chat import render_chatml
from .model import SERVE_ADAPTERS, TRAIN, ChatModel
from .peft_folder import copy_lora_weights, peft_key

SPECIALS = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")
IM_START, IM_END, PAD = 256, 257, 258
VOCAB = 260


class ByteTokenizer:
    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        i = 0
        while i < len(text):
            for k, special in enumerate(SPECIALS):
                if text.startswith(special, i):
                    ids.append(256 + k)
                    i += len(special)
                    break
            else:
                j = min((p for p in (text.find(s, i) for s in SPECIALS) if p >= 0), default=len(text))
                ids.extend(text[i:j].encode("utf-8"))
                i = j
        return ids

    def decode(self, ids: Sequence[int]) -> str:
        out, buf = [], bytearray()
        for t in ids:
            t = int(t)
            if t < 256:
                buf.append(t)
                continue
            out.append(buf.decode("utf-8", "replace"))
            buf = bytearray()
            out.append(SPECIALS[t - 256] if t - 256 < len(SPECIALS) else "")
        out.append(buf.decode("utf-8", "replace"))
        return "".join(out)


class LoraLinear(nn.Module):
    """A frozen linear layer plus one low-rank delta per named adapter (B starts at zero, as peft's)."""

    def __init__(self, d_in: int, d_out: int, rank: int, alpha: float, adapters: Sequence[str]):
        super().__init__()
        self.base = nn.Linear(d_in, d_out)
        self.base.requires_grad_(False)
        self.scale = alpha / rank
        self.lora_a = nn.ParameterDict({n: nn.Parameter(torch.empty(rank, d_in)) for n in adapters})
        self.lora_b = nn.ParameterDict({n: nn.Parameter(torch.zeros(d_out, rank)) for n in adapters})
        for p in self.lora_a.values():
            nn.init.kaiming_uniform_(p, a=math.sqrt(5))

    def forward(self, x: torch.Tensor, adapter: str | None) -> torch.Tensor:
        y = self.base(x)
        if adapter is None:
            return y
        return y + (x @ self.lora_a[adapter].t() @ self.lora_b[adapter].t()) * self.scale


class Block(nn.Module):
    def __init__(self, d: int, heads: int, ff: int, rank: int, alpha: float, adapters: Sequence[str]):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        lin = lambda a, b: LoraLinear(a, b, rank, alpha, adapters)  # noqa: E731
        self.q, self.k, self.v, self.o = lin(d, d), lin(d, d), lin(d, d), lin(d, d)
        self.up, self.down = lin(d, ff), lin(ff, d)

    def forward(self, x: torch.Tensor, allowed: torch.Tensor, adapter: str | None) -> torch.Tensor:
        b, t, d = x.shape
        h = self.ln1(x)
        split = lambda z: z.view(b, t, self.heads, d // self.heads).transpose(1, 2)  # noqa: E731
        q, k, v = split(self.q(h, adapter)), split(self.k(h, adapter)), split(self.v(h, adapter))
        att = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.heads)
        att = att.masked_fill(~allowed[:, None], float("-inf")).softmax(-1)
        x = x + self.o((att @ v).transpose(1, 2).reshape(b, t, d), adapter)
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x), adapter)), adapter)


class TinyTransformer(nn.Module):
    def __init__(self, d: int = 64, layers: int = 2, heads: int = 4, ff: int = 256, positions: int = 4096, rank: int = 8, alpha: float = 16, seed: int = 0, adapters: Sequence[str] = (TRAIN, *SERVE_ADAPTERS)):
        super().__init__()
        torch.manual_seed(seed)
        self.config = {"d": d, "layers": layers, "heads": heads, "ff": ff, "positions": positions, "rank": rank, "alpha": alpha, "seed": seed}
        self.embed = nn.Embedding(VOCAB, d)
        self.pos = nn.Embedding(positions, d)
        self.blocks = nn.ModuleList(Block(d, heads, ff, rank, alpha, adapters) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, VOCAB, bias=False)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, adapter: str | None) -> torch.Tensor:
        t = ids.shape[1]
        mask = mask.bool()
        positions = (mask.long().cumsum(-1) - 1).clamp(min=0)
        causal = torch.ones(t, t, dtype=torch.bool, device=ids.device).tril()
        # Keys: real tokens at or before the query; a padding query sees itself (so no row is all -inf).
        allowed = (causal[None] & mask[:, None, :]) | torch.eye(t, dtype=torch.bool, device=ids.device)[None]
        x = self.embed(ids) + self.pos(positions)
        for block in self.blocks:
            x = block(x, allowed, adapter)
        return self.head(self.ln(x))

    def adapter_parameters(self, name: str) -> list[nn.Parameter]:
        return [p for n, p in self.named_parameters() if n.endswith(f".{name}")]


class TinyChatModel(ChatModel):
    def __init__(self, seed: int = 0, device: str = "cpu", full: bool = False, **shape: Any):
        self.name = "tiny"
        self.full = full
        self.tokenizer = ByteTokenizer()
        self.vocab_size = VOCAB
        self.eos_ids = frozenset({IM_END, PAD})
        self.pad_id = PAD
        self.device = torch.device(device)
        if full:
            # No LoRA deltas: the frozen base is the network itself, each other name a copy of it.
            self.net = TinyTransformer(seed=seed, adapters=(), **shape).to(self.device)
            self.net.requires_grad_(False)
            self.copies: dict[str | None, TinyTransformer] = {None: self.net}
            for name in (TRAIN, *SERVE_ADAPTERS):
                self.copies[name] = copy.deepcopy(self.net)
            self.copies[TRAIN].requires_grad_(True)
        else:
            self.net = TinyTransformer(seed=seed, **shape).to(self.device)
            self.net.requires_grad_(False)
            for p in self.net.adapter_parameters(TRAIN):
                p.requires_grad_(True)

    def _forward(self, ids: torch.Tensor, mask: torch.Tensor, adapter: str | None) -> torch.Tensor:
        if self.full:
            return self.copies[adapter](ids, mask, None)
        return self.net(ids, mask, adapter)

    def render(self, messages: Sequence[Any], tools: Sequence[Any] | None = None, add_generation_prompt: bool = True) -> str:
        return render_chatml(messages, tools, add_generation_prompt)

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text)

    def decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(ids)

    def logits(self, ids: torch.Tensor, mask: torch.Tensor, adapter: str | None) -> torch.Tensor:
        return self._forward(ids, mask, adapter)

    def start(self, ids: torch.Tensor, mask: torch.Tensor, adapter: str | None) -> tuple[torch.Tensor, Any]:
        # No KV cache: the tiny model recomputes the whole sequence each step (it is tiny).
        return self._forward(ids, mask, adapter)[:, -1], (ids, mask, adapter)

    def advance(self, state: Any, tokens: torch.Tensor) -> tuple[torch.Tensor, Any]:
        ids, mask, adapter = state
        ids = torch.cat([ids, tokens[:, None]], dim=1)
        mask = torch.cat([mask, torch.ones_like(tokens)[:, None]], dim=1)
        return self._forward(ids, mask, adapter)[:, -1], (ids, mask, adapter)

    def _params(self, name: str) -> list[nn.Parameter]:
        return list(self.copies[name].parameters()) if self.full else self.net.adapter_parameters(name)

    def trainable_parameters(self) -> list[nn.Parameter]:
        return self._params(TRAIN)

    @torch.no_grad()
    def copy_adapter(self, src: str, dst: str) -> None:
        for s, d in zip(self._params(src), self._params(dst)):
            d.copy_(s)

    def lora_state(self, name: str) -> tuple[dict[str, torch.Tensor], list[str]]:
        if self.full:
            return super().lora_state(name)
        weights, targets = {}, set()
        for module, layer in self.net.named_modules():
            if isinstance(layer, LoraLinear):
                weights[peft_key(module, "A")] = layer.lora_a[name].detach().cpu().clone()
                weights[peft_key(module, "B")] = layer.lora_b[name].detach().cpu().clone()
                targets.add(module.rsplit(".", 1)[-1])
        return weights, sorted(targets)

    def load_lora_state(self, name: str, weights: Mapping[str, torch.Tensor]) -> None:
        if self.full:
            return super().load_lora_state(name, weights)
        params = {}
        for module, layer in self.net.named_modules():
            if isinstance(layer, LoraLinear):
                params[peft_key(module, "A")] = layer.lora_a[name]
                params[peft_key(module, "B")] = layer.lora_b[name]
        copy_lora_weights(params, weights)

    @torch.no_grad()
    def load_adapter(self, name: str, path: str) -> None:
        if self.full:
            raise NotImplementedError("a full fine-tuning checkpoint is a whole model: not resumed into a running trainer")
        # save_adapter's file, keyed by parameter name (the adapter's name last: a TRAIN checkpoint loads into TRAIN).
        state = torch.load(os.path.join(path, "adapter.pt"))
        params = {n: p for n, p in self.net.named_parameters() if n.endswith(f".{name}")}
        if set(state) != set(params) or any(state[n].shape != p.shape for n, p in params.items()):
            raise ValueError(f"{path}: not an adapter of this model's shape")
        for n, p in params.items():
            p.copy_(state[n])

    def save_adapter(self, name: str, path: str) -> None:
        os.makedirs(path, exist_ok=True)
        if self.full:
            # A whole model folder: the weights and the shape they load into.
            torch.save({n: p.detach().cpu() for n, p in self.copies[name].state_dict().items()}, os.path.join(path, "model.pt"))
            with open(os.path.join(path, "config.json"), "w", encoding="utf-8") as f:
                json.dump({"model": "tiny", "finetune": "full", **self.net.config}, f)
            return
        state = {n: p.detach().cpu() for n, p in self.net.named_parameters() if n.endswith(f".{name}")}
        torch.save(state, os.path.join(path, "adapter.pt"))
        with open(os.path.join(path, "adapter_config.json"), "w", encoding="utf-8") as f:
            json.dump({"model": "tiny", **self.net.config}, f)
