"""The model interface the server, the trainer and the device check are written against.

Two implementations: ``tiny.TinyChatModel`` (a small randomly initialised torch transformer with a byte
tokenizer and ChatML; runs on torch 1.13 CPU, used by CI) and ``hf_model.HfChatModel`` (transformers'
``AutoModelForCausalLM`` with the tokenizer's own chat template and a peft LoRA adapter; ``HfFullChatModel``
for full fine-tuning).

Adapters are named. ``TRAIN`` is the one the optimizer updates; serving reads one of two serving copies
(``SERVE_ADAPTERS``) that ``AdapterSlots`` flips between, so a weight swap never touches weights a request in
flight is reading; ``None`` is the frozen base (the judge and the teacher). Log-probs everywhere are
``log_softmax`` of the raw logits (temperature 1), the quantity the trainer recomputes, whatever temperature
sampling used. In full fine-tuning each name is a whole copy of the weights instead of an adapter (``None`` then
a second, frozen copy), and all of the above holds unchanged.
"""

from __future__ import annotations

import abc
import threading
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

TRAIN = "trainer"
SERVE_ADAPTERS = ("served_a", "served_b")


class ChatModel(abc.ABC):
    """Template, tokenize, forward → logits, incremental decoding, and named LoRA adapters (or full copies)."""

    name: str
    vocab_size: int
    eos_ids: frozenset[int]
    device: Any
    # Full fine-tuning (each name a whole copy of the weights) rather than LoRA adapters.
    full: bool = False

    # -- text -------------------------------------------------------------------------------------------
    @abc.abstractmethod
    def render(self, messages: Sequence[Any], tools: Sequence[Any] | None = None, add_generation_prompt: bool = True) -> str: ...

    @abc.abstractmethod
    def encode(self, text: str) -> list[int]: ...

    @abc.abstractmethod
    def decode(self, ids: Sequence[int]) -> str: ...

    def token_text(self, token_id: int) -> str:
        return self.decode([token_id])

    # -- compute ----------------------------------------------------------------------------------------
    @abc.abstractmethod
    def logits(self, ids: Any, mask: Any, adapter: str | None) -> Any:
        """[B, T, V] logits for left-padded ``ids`` ([B, T], ``mask`` 1 on real tokens) under ``adapter``."""

    @abc.abstractmethod
    def start(self, ids: Any, mask: Any, adapter: str | None) -> tuple[Any, Any]:
        """Prefill: the last position's logits [B, V] and a decoding state."""

    @abc.abstractmethod
    def advance(self, state: Any, tokens: Any) -> tuple[Any, Any]:
        """One decoding step with ``tokens`` [B] appended: the next logits [B, V] and the new state."""

    # -- adapters ---------------------------------------------------------------------------------------
    @abc.abstractmethod
    def trainable_parameters(self) -> list[Any]:
        """The parameters of the ``TRAIN`` adapter (what the optimizer steps)."""

    @abc.abstractmethod
    def copy_adapter(self, src: str, dst: str) -> None: ...

    @abc.abstractmethod
    def save_adapter(self, name: str, path: str) -> None:
        """The adapter's folder, or in full fine-tuning a whole model folder."""

    def lora_state(self, name: str) -> tuple[dict[str, Any], list[str]]:
        """The adapter's weights under PEFT's saved keys (``peft_folder.peft_key``) and the module names it adapts
        (``target_modules``): what a PEFT folder of it holds. LoRA only (a per-user adapter is never full weights)."""
        raise NotImplementedError(f"{type(self).__name__} has no LoRA adapters to save as a PEFT folder")

    def load_lora_state(self, name: str, weights: Any) -> None:
        """The inverse of ``lora_state``: sets the adapter's weights from a PEFT folder's (``peft_folder.read_peft_folder``),
        keyed as ``lora_state`` keys them; a folder whose keys or shapes differ is refused."""
        raise NotImplementedError(f"{type(self).__name__} has no LoRA adapters to load a PEFT folder into")

    def load_adapter(self, name: str, path: str) -> None:
        """The inverse of ``save_adapter`` for a LoRA adapter (a PEFT folder here): a restarted trainer resumes the
        run's newest checkpoint. Full fine-tuning does not resume (NotImplementedError): its checkpoint is a whole
        model, which a restart loads as ``HF_MODEL`` instead."""
        from .peft_folder import read_peft_folder

        weights, _ = read_peft_folder(path)
        self.load_lora_state(name, weights)

    def backward(self, loss: Any) -> None:
        """Backpropagates a training loss (implementations with global adapter state set the trained one)."""
        loss.backward()

    def set_gradient_checkpointing(self, on: bool) -> None:  # noqa: B027 (optional: models that have it)
        """Trade compute for activation memory during training, where the implementation supports it."""


class AdapterSlots:
    """Which serving copy answers new requests, and how many requests are reading each.

    ``acquire`` pins the current copy for one request (a request runs on one version start to end);
    ``publish`` copies the training adapter (or the full weights) into the idle copy once no request reads it, then flips, so
    serving never pauses and nothing reads half-copied weights."""

    def __init__(self, model: ChatModel):
        self.model = model
        self._cond = threading.Condition()
        self._current = 0
        self._readers = [0, 0]
        self.version = 0
        self.checkpoint: str | None = None
        for name in SERVE_ADAPTERS:
            model.copy_adapter(TRAIN, name)

    @contextmanager
    def reading(self) -> Iterator[tuple[str, int]]:
        with self._cond:
            slot = self._current
            self._readers[slot] += 1
            version = self.version
        try:
            yield SERVE_ADAPTERS[slot], version
        finally:
            with self._cond:
                self._readers[slot] -= 1
                self._cond.notify_all()

    def publish(self, version: int, checkpoint: str | None = None) -> None:
        with self._cond:
            idle = 1 - self._current
            # New readers always take the current copy, so once the idle one's readers are gone it stays free.
            self._cond.wait_for(lambda: self._readers[idle] == 0)
        self.model.copy_adapter(TRAIN, SERVE_ADAPTERS[idle])
        with self._cond:
            self._current = idle
            self.version = version
            self.checkpoint = checkpoint
