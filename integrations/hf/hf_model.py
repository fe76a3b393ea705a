"""The ``hf`` model: transformers' ``AutoModelForCausalLM`` with the tokenizer's own chat template and peft LoRA
adapters (one trained, two serving copies), behind the ``ChatModel`` interface.

peft's active adapter is a property of the whole model, so every forward (and every backward, which recomputes
forwards under gradient checkpointing) runs under one lock with its adapter set; the frozen base is
``disable_adapter()``. Serving and training therefore interleave at the granularity of one forward (a decode
step, a micro-batch), and neither waits for the other's whole request or step.

``HfFullChatModel`` is full fine-tuning: each name is a whole copy of the model (the trained one in fp32, as bf16
cannot hold a 1e-5 step, its forwards autocast to the serving dtype so π_old matches what serving sampled; two
serving copies and the frozen base in the checkpoint's dtype). The copies share no state, so it needs no lock.

``build_random`` makes a randomly initialised model of a real architecture (a Qwen3 config) and a byte-level
tokenizer with a ChatML template, entirely offline: what the GPU device check and the glue tests run on.
transformers, tokenizers and peft are imported here only.
"""

from __future__ import annotations

import copy
import threading
from contextlib import contextmanager, nullcontext
from typing import Any, Iterator, Mapping, Sequence

import torch

from .chat import normalize
from .model import SERVE_ADAPTERS, TRAIN, ChatModel
from .peft_folder import copy_lora_weights, lora_config, write_peft_folder

CHATML_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] or '' }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

#: Qwen3 shapes (Qwen/Qwen3-*/config.json), the same numbers as server/runs/backends/hfLocal/memory.ts.
QWEN3_SHAPES = {
    "0.6b": dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, tie_word_embeddings=True),
    "1.7b": dict(hidden_size=2048, intermediate_size=6144, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, tie_word_embeddings=True),
    "4b": dict(hidden_size=2560, intermediate_size=9728, num_hidden_layers=36, num_attention_heads=32, num_key_value_heads=8, tie_word_embeddings=True),
}
QWEN3_VOCAB = 151_936


class HfChatModel(ChatModel):
    def __init__(self, base: Any, tokenizer: Any, name: str, rank: int = 16, alpha: int = 32, gradient_checkpointing: bool = True):
        from peft import LoraConfig, get_peft_model  # type: ignore[import-not-found]

        self._describe(base, tokenizer, name)
        cfg = LoraConfig(r=rank, lora_alpha=alpha, target_modules="all-linear", lora_dropout=0.0, task_type="CAUSAL_LM")
        self.peft = get_peft_model(base, cfg, adapter_name=TRAIN)
        for n in SERVE_ADAPTERS:
            self.peft.add_adapter(n, cfg)
        # The serving copies in the base's dtype. peft keeps adapters in fp32, so every LoRA module of a forward
        # casts its input up and its output down: on the first profiled GPU run (H200, Qwen3-0.6B) about 400 of
        # a decode step's 2,300 kernel launches, and decoding is launch-bound there (7 ms of GPU work in a 68 ms
        # step). The trained adapter stays fp32 (bf16 cannot hold a small step); publishing rounds it once.
        dtype = next(base.parameters()).dtype
        for name, p in self.peft.named_parameters():
            if any(f".{n}." in name for n in SERVE_ADAPTERS):
                p.data = p.data.to(dtype)
        self._train = [p for n, p in self.peft.named_parameters() if f".{TRAIN}." in n]
        self._lock = threading.RLock()
        self._adapter: str | None = "unset"
        self.set_gradient_checkpointing(gradient_checkpointing)

    def _describe(self, base: Any, tokenizer: Any, name: str) -> None:
        self.name = name
        self.tokenizer = tokenizer
        self.device = next(base.parameters()).device
        self.vocab_size = int(base.config.vocab_size)
        eos = set()
        for source in (tokenizer.eos_token_id, getattr(getattr(base, "generation_config", None), "eos_token_id", None)):
            eos.update(source if isinstance(source, (list, tuple)) else [source] if source is not None else [])
        self.eos_ids = frozenset(int(e) for e in eos)
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else min(self.eos_ids)
        self.max_positions = getattr(base.config, "max_position_embeddings", None)

    @classmethod
    def load(cls, name_or_path: str, device: str | None = None, dtype: str = "bfloat16", full: bool = False, **kw: Any) -> "ChatModel":
        from transformers import AutoModelForCausalLM, AutoTokenizer  # type: ignore[import-not-found]

        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        tokenizer = AutoTokenizer.from_pretrained(name_or_path)
        base = AutoModelForCausalLM.from_pretrained(name_or_path, dtype=getattr(torch, dtype)).to(device)
        return _build(base, tokenizer, name_or_path, full, kw)

    # -- adapters under the lock -------------------------------------------------------------------------
    @contextmanager
    def using(self, adapter: str | None, training: bool = False) -> Iterator[None]:
        with self._lock:
            # Train mode only for forwards that build a graph: transformers checkpoints layers (and turns the KV
            # cache off) only in train mode, and decoding needs the cache.
            if self.peft.training != training:
                self.peft.train(training)
            # The adapter layers stay disabled (the frozen base) until another adapter is asked for: peft's
            # disable_adapter() context walks every module twice per forward, and a base forward cost 80 ms
            # against the adapter's 60 on the profiled GPU run (the judge and the teachers read the base).
            if adapter is None:
                if self._adapter is not None:
                    self.peft.base_model.disable_adapter_layers()
                    self._adapter = None
                yield
                return
            if self._adapter is None:
                # Re-enabling re-activates the last active adapter (and only its parameters' gradients).
                self.peft.base_model.enable_adapter_layers()
                self._adapter = "unset"
            if adapter != self._adapter:
                self.peft.set_adapter(adapter)
                # set_adapter makes only the active adapter trainable; the trained one always stays so.
                for p in self._train:
                    p.requires_grad_(True)
                self._adapter = adapter
            yield

    def backward(self, loss: torch.Tensor) -> None:
        with self.using(TRAIN, training=True):
            loss.backward()

    def set_gradient_checkpointing(self, on: bool) -> None:
        base = self.peft.get_base_model()
        if on:
            base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        else:
            base.gradient_checkpointing_disable()

    # -- text --------------------------------------------------------------------------------------------
    def render(self, messages: Sequence[Any], tools: Sequence[Any] | None = None, add_generation_prompt: bool = True) -> str:
        kwargs: dict[str, Any] = {"tokenize": False, "add_generation_prompt": add_generation_prompt}
        if tools:
            kwargs["tools"] = list(tools)
        return self.tokenizer.apply_chat_template(normalize(messages), **kwargs)

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=False)

    # -- compute -----------------------------------------------------------------------------------------
    @staticmethod
    def _positions(mask: torch.Tensor) -> torch.Tensor:
        return (mask.long().cumsum(-1) - 1).clamp(min=0)

    def _run(self, adapter: str | None, training: bool, **inputs: Any) -> Any:
        with self.using(adapter, training=training):
            return self.peft(**inputs)

    def logits(self, ids: torch.Tensor, mask: torch.Tensor, adapter: str | None) -> torch.Tensor:
        out = self._run(adapter, torch.is_grad_enabled(), input_ids=ids, attention_mask=mask, position_ids=self._positions(mask), use_cache=False)
        return out.logits

    def start(self, ids: torch.Tensor, mask: torch.Tensor, adapter: str | None) -> tuple[torch.Tensor, Any]:
        out = self._run(adapter, False, input_ids=ids, attention_mask=mask, position_ids=self._positions(mask), use_cache=True)
        return out.logits[:, -1], (out.past_key_values, mask, self._positions(mask)[:, -1], adapter)

    def advance(self, state: Any, tokens: torch.Tensor) -> tuple[torch.Tensor, Any]:
        past, mask, last, adapter = state
        mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
        pos = last + 1
        out = self._run(adapter, False, input_ids=tokens[:, None], attention_mask=mask, position_ids=pos[:, None], past_key_values=past, use_cache=True)
        return out.logits[:, -1], (out.past_key_values, mask, pos, adapter)

    def trainable_parameters(self) -> list[torch.nn.Parameter]:
        return list(self._train)

    @torch.no_grad()
    def copy_adapter(self, src: str, dst: str) -> None:
        params = dict(self.peft.named_parameters())
        for name, p in params.items():
            if f".{src}." in name:
                params[name.replace(f".{src}.", f".{dst}.")].copy_(p)

    def save_adapter(self, name: str, path: str) -> None:
        # Not peft.save_pretrained: it puts a non-default adapter (ours is "trainer") into <path>/<name>/, and the
        # path this checkpoint is reported under must hold adapter_config.json itself. One writer for both modes.
        cfg = self.peft.peft_config[name]
        weights, targets = self.lora_state(name)
        write_peft_folder(path, weights, lora_config(self.name, cfg.r, cfg.lora_alpha, targets))

    def lora_state(self, name: str) -> tuple[dict[str, torch.Tensor], list[str]]:
        from peft import get_peft_model_state_dict

        # PEFT's own saved keys (prefix kept, adapter name dropped), moved to the CPU for writing.
        state = get_peft_model_state_dict(self.peft, adapter_name=name)
        targets = self.peft.peft_config[name].target_modules
        return {k: v.detach().cpu().clone() for k, v in state.items()}, sorted(targets if not isinstance(targets, str) else [targets])

    def load_lora_state(self, name: str, weights: Mapping[str, torch.Tensor]) -> None:
        # By key into the adapter's own lora_A / lora_B parameters: a parameter's name with ".<adapter>" dropped is
        # the key get_peft_model_state_dict saves it under (what lora_state writes), so the key sets must match.
        # Under the lock: the copy must not land between a forward's layers.
        marker = f".{name}."
        params = {n.replace(marker, "."): p for n, p in self.peft.named_parameters() if marker in n and ".lora_" in n}
        with self._lock:
            copy_lora_weights(params, weights)


class HfFullChatModel(HfChatModel):
    """Full fine-tuning: the trained model (fp32 master weights), two serving copies and the frozen base."""

    full = True

    def __init__(self, base: Any, tokenizer: Any, name: str, gradient_checkpointing: bool = True, **_lora: Any):
        self._describe(base, tokenizer, name)
        base.requires_grad_(False)
        base.eval()
        self.dtype = next(base.parameters()).dtype
        self.copies: dict[str | None, Any] = {None: base}
        for n in SERVE_ADAPTERS:
            self.copies[n] = copy.deepcopy(base)
        trained = copy.deepcopy(base).float()
        trained.requires_grad_(True)
        self.copies[TRAIN] = trained
        self.set_gradient_checkpointing(gradient_checkpointing)

    def _run(self, adapter: str | None, training: bool, **inputs: Any) -> Any:
        model = self.copies[adapter]
        if adapter != TRAIN:
            return model(**inputs)
        # Only the trainer's thread runs the trained copy, so its train/eval mode is not shared with serving.
        if model.training != training:
            model.train(training)
        mixed = self.device.type == "cuda" and self.dtype != torch.float32
        with torch.autocast("cuda", dtype=self.dtype) if mixed else nullcontext():
            return model(**inputs)

    def backward(self, loss: torch.Tensor) -> None:
        loss.backward()

    def set_gradient_checkpointing(self, on: bool) -> None:
        trained = self.copies[TRAIN]
        if on:
            trained.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        else:
            trained.gradient_checkpointing_disable()

    def trainable_parameters(self) -> list[torch.nn.Parameter]:
        return list(self.copies[TRAIN].parameters())

    @torch.no_grad()
    def copy_adapter(self, src: str, dst: str) -> None:
        for s, d in zip(self.copies[src].parameters(), self.copies[dst].parameters()):
            d.copy_(s)

    def load_adapter(self, name: str, path: str) -> None:
        raise NotImplementedError("a full fine-tuning checkpoint is a whole model: not resumed into a running trainer")

    def save_adapter(self, name: str, path: str) -> None:
        """A whole checkpoint folder (weights in the checkpoint's dtype, config, tokenizer) that loads as a model."""
        model = self.copies[name]
        cast: dict[int, torch.Tensor] = {}
        state = {}
        for key, tensor in model.state_dict().items():
            # One cast per storage, so tied weights (embeddings = LM head) stay tied in the saved file.
            state[key] = cast.setdefault(tensor.data_ptr(), tensor.detach().to(self.dtype))
        model.save_pretrained(path, state_dict=state)
        self.tokenizer.save_pretrained(path)


def _build(base: Any, tokenizer: Any, name: str, full: bool, kw: dict[str, Any]) -> ChatModel:
    return HfFullChatModel(base, tokenizer, name, **kw) if full else HfChatModel(base, tokenizer, name, **kw)


def byte_tokenizer(vocab_size: int) -> Any:
    """A byte-level BPE tokenizer with no merges, ChatML's special tokens and ``vocab_size`` entries (fillers
    past the 256 bytes, so every id a full-size random model samples decodes), built offline."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers  # type: ignore[import-not-found]
    from transformers import PreTrainedTokenizerFast  # type: ignore[import-not-found]

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    alphabet.sort()
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "</tool_call>"]
    vocab = {ch: i for i, ch in enumerate(alphabet)}
    fill = vocab_size - len(specials)
    i = 0
    while len(vocab) < fill:
        a, b = alphabet[i % 256], alphabet[(i // 256) % 256]
        token = a + b if i < 65536 else a + b + alphabet[(i // 65536) % 256]
        vocab.setdefault(token, len(vocab))
        i += 1
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    fast.add_special_tokens({"additional_special_tokens": specials[1:]})
    fast.chat_template = CHATML_TEMPLATE
    return fast


def build_random(size: str = "0.6b", device: str | None = None, dtype: str = "bfloat16", layers: int | None = None, seed: int = 0, full: bool = False, **kw: Any) -> ChatModel:
    """A randomly initialised Qwen3-shaped model (``size`` in QWEN3_SHAPES, or "toy" for a CPU-sized one)."""
    from transformers import AutoModelForCausalLM, Qwen3Config  # type: ignore[import-not-found]

    torch.manual_seed(seed)
    if size == "toy":
        shape = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=True)
        vocab = 512
    else:
        shape, vocab = dict(QWEN3_SHAPES[size]), QWEN3_VOCAB
    if layers:
        shape["num_hidden_layers"] = layers
    tokenizer = byte_tokenizer(vocab)
    config = Qwen3Config(vocab_size=vocab, head_dim=128 if size != "toy" else 16, max_position_embeddings=40960,
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, **shape)
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    base = AutoModelForCausalLM.from_config(config, dtype=getattr(torch, dtype)).to(device)
    return _build(base, tokenizer, f"random-qwen3-{size}", full, kw)
