"""The Tinker bridge's sampling endpoint: OpenAI-compatible ``POST /v1/chat/completions`` answered by a Tinker
``SamplingClient`` for the weights the bridge trained last (the base model before the first step), so the
control plane's proxy forwards the run's traffic to the policy Tinker is training and the loop closes as it
does for the embedded trainer. The bridge reports ``http://<host>:<port>/v1`` as the run's ``rolloutUrl``
(the proxy forwards a non-embedded policy there while the run is live).

Against the SDK (thinking-machines-lab/tinker @ d595dc2): ``SamplingClient.sample(prompt: ModelInput,
num_samples, sampling_params: SamplingParams, ...) -> Future[SampleResponse]``
(``lib/public_interfaces/sampling_client.py``); ``SamplingParams(max_tokens, seed, stop, temperature=1,
top_k=-1, top_p=1)`` (``types/_pydantic_types/sampling_params.py``); ``SampleResponse.sequences`` of
``SampledSequence(stop_reason: "length" | "stop", tokens, logprobs)`` (``types/sample_response.py``,
``types/sampled_sequence.py``). The sampler has no chat API: the prompt is rendered with the training
tokenizer's chat template (the policy's own) and tokenized here.

The answer carries what the proxy records for training: ``choices[].token_ids`` (the sampled ids) and
``choices[].logprobs.content[].logprob`` (their behaviour log-probs). Qwen-style ``<tool_call>{json}</tool_call>``
blocks become ``tool_calls`` and a leading ``<think>…</think>`` becomes ``reasoning_content``, as SGLang's
``qwen25`` tool and ``qwen3`` reasoning parsers do for the same models. Standard library only.

Per user (``TINKER_PER_USER=1``, ``LoraSamplers``): the endpoint speaks the part of SGLang's multi-LoRA contract the
proxy uses (``tests/fixtures/lora/sglang.json``): ``POST /load_lora_adapter {lora_name, lora_path}`` makes a sampling
client for a user's ``tinker://`` sampler path, ``POST /unload_lora_adapter {lora_name}`` drops it, and a request naming
``lora_path: <name>`` is answered by that client (one it does not hold: SGLang's not-loaded message, so the proxy loads
it again). A request without ``lora_path`` gets the base model's sampler.

Scoring (``POST /generate``, ``score_generate``): the part of SGLang's ``/generate`` the console's log-prob scorer
sends (``server/judge/core/teacherClients.ts`` ``createSglangTeacher``; the fields are ``GenerateReqInput``'s in
``tests/fixtures/lora/sglang.json``): ``text`` or ``input_ids``, ``sampling_params.max_new_tokens`` 0,
``return_logprob``, ``logprob_start_len`` and ``lora_path``, answered with ``meta_info.input_token_logprobs`` from the
SDK's ``SamplingClient.compute_logprobs`` (``lib/public_interfaces/sampling_client.py``, in
``tests/fixtures/tinker/datum-contract.json``). It is how the per-user gate scores a user's candidate sampler
against the served one on that user's held-out replies (``server/personalization/engineGate.ts``). It only scores:
a request to generate tokens gets 400.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

log = logging.getLogger("openclaw.tinker.serve")

DEFAULT_MAX_TOKENS = 1024


class BadRequest(Exception):
    pass


class SamplerSlot:
    """The sampling client the endpoint answers with; the training loop swaps it after every step."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.sampler: Any = None
        self.tokenizer: Any = None
        self.path: str | None = None
        self.step = 0

    def set(self, sampler: Any, tokenizer: Any, path: str | None, step: int) -> None:
        with self._lock:
            self.sampler, self.tokenizer, self.path, self.step = sampler, tokenizer, path, step

    def get(self) -> tuple[Any, Any, str | None, int]:
        with self._lock:
            return self.sampler, self.tokenizer, self.path, self.step


class LoraSamplers:
    """Sampling clients by adapter name, for a per-user experiment's users (their tinker:// sampler paths)."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self._lock = threading.Lock()
        self._by_name: dict[str, tuple[Any, str]] = {}

    def load(self, name: str, path: str) -> None:
        if not isinstance(name, str) or not name or not isinstance(path, str) or not path.startswith("tinker://"):
            raise BadRequest("lora_name and a tinker:// lora_path are required")
        sampler = self.service.create_sampling_client(model_path=path)
        with self._lock:
            self._by_name[name] = (sampler, path)

    def unload(self, name: str) -> bool:
        with self._lock:
            return self._by_name.pop(name, None) is not None

    def get(self, name: str) -> tuple[Any, str]:
        with self._lock:
            held = self._by_name.get(name)
            if held is None:
                # SGLang's LoRA registry (acquire) words it so; the proxy matches the text up to the name.
                loaded = ", ".join(sorted(self._by_name))
                raise BadRequest(f"The following requested LoRA adapters are not loaded: {name}\nLoaded adapters: {loaded}.")
            return held


_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)
_THINK = re.compile(r"^\s*<think>(.*?)</think>\s*", re.S)


def parse_message(text: str) -> dict[str, Any]:
    """The assistant message for generated text: reasoning, tool calls (Hermes/Qwen format) and content."""
    message: dict[str, Any] = {"role": "assistant"}
    think = _THINK.match(text)
    if think:
        message["reasoning_content"] = think.group(1).strip()
        text = text[think.end():]
    calls = []
    for i, m in enumerate(_TOOL_CALL.finditer(text)):
        try:
            call = json.loads(m.group(1))
            name, args = call["name"], call.get("arguments", {})
        except (ValueError, KeyError, TypeError):
            continue  # not a well-formed call: it stays in the content, as the model wrote it
        calls.append({"id": f"call_{uuid.uuid4().hex[:12]}", "index": i, "type": "function",
                      "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}})
    if calls:
        text = _TOOL_CALL.sub("", text)
        message["tool_calls"] = calls
    message["content"] = text.strip() if calls else text
    return message


def _prompt_ids(tokenizer: Any, body: dict[str, Any]) -> list[int]:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("messages: a non-empty list is required")
    kwargs: dict[str, Any] = {"tokenize": False, "add_generation_prompt": True}
    if body.get("tools"):
        kwargs["tools"] = body["tools"]
    text = tokenizer.apply_chat_template(messages, **kwargs)
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _sampling_params(types: Any, tokenizer: Any, body: dict[str, Any]) -> Any:
    max_tokens = body.get("max_completion_tokens") or body.get("max_tokens") or DEFAULT_MAX_TOKENS
    if not isinstance(max_tokens, int) or max_tokens < 1:
        raise BadRequest("max_tokens: a positive integer is required")
    stop = body.get("stop")
    if isinstance(stop, str):
        stop = [stop]
    if not stop:
        # The chat template's end of turn (Qwen: <|im_end|>, the tokenizer's eos), as the cookbook's renderers stop.
        eos = getattr(tokenizer, "eos_token_id", None)
        stop = [eos] if isinstance(eos, int) else None
    kwargs: dict[str, Any] = {"max_tokens": max_tokens, "temperature": float(body.get("temperature", 1.0)), "top_p": float(body.get("top_p", 1.0)), "stop": stop}
    if body.get("top_k") is not None:
        kwargs["top_k"] = int(body["top_k"])
    if body.get("seed") is not None:
        kwargs["seed"] = int(body["seed"])
    return types.SamplingParams(**kwargs)


def _sampler_for(slot: SamplerSlot, body: dict[str, Any], loras: LoraSamplers | None) -> tuple[Any, Any, str | None, int]:
    """The slot's sampler, or the user's a per-user request names in ``lora_path``; the slot's tokenizer and step."""
    sampler, tokenizer, path, step = slot.get()
    if sampler is None:
        raise LookupError("the Tinker sampler is not ready yet")
    if body.get("lora_path") is not None:
        if loras is None:
            raise BadRequest("lora_path: this endpoint serves no per-user adapters (TINKER_PER_USER is not set)")
        sampler, path = loras.get(str(body["lora_path"]))
    return sampler, tokenizer, path, step


def chat_completion(types: Any, slot: SamplerSlot, body: dict[str, Any], served_name: str, loras: LoraSamplers | None = None) -> dict[str, Any]:
    """One OpenAI chat completion from the slot's sampler, or from the user's adapter a per-user request names in
    ``lora_path`` (raises BadRequest, or LookupError before there is a sampler)."""
    sampler, tokenizer, path, step = _sampler_for(slot, body, loras)
    n = body.get("n", 1)
    if not isinstance(n, int) or not 1 <= n <= 16:
        raise BadRequest("n: an integer from 1 to 16 is required")
    prompt = _prompt_ids(tokenizer, body)
    params = _sampling_params(types, tokenizer, body)
    response = sampler.sample(prompt=types.ModelInput.from_ints(prompt), num_samples=n, sampling_params=params).result()
    eos = getattr(tokenizer, "eos_token_id", None)
    choices, completion_tokens = [], 0
    for i, seq in enumerate(response.sequences):
        tokens, logprobs = list(seq.tokens), seq.logprobs
        completion_tokens += len(tokens)
        # The stop token ends the turn; it is not part of the text the client sees.
        visible = tokens[:-1] if seq.stop_reason == "stop" and tokens and tokens[-1] == eos else tokens
        message = parse_message(tokenizer.decode(visible))
        choice: dict[str, Any] = {
            "index": i,
            "message": message,
            "finish_reason": "tool_calls" if "tool_calls" in message else ("length" if seq.stop_reason == "length" else "stop"),
            "token_ids": tokens,
            "logprobs": None if logprobs is None else {
                "content": [{"token": tokenizer.decode([t]), "logprob": float(lp), "bytes": None, "top_logprobs": []} for t, lp in zip(tokens, logprobs)]
            },
        }
        choices.append(choice)
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": served_name,
        "choices": choices,
        "usage": {"prompt_tokens": len(prompt), "completion_tokens": completion_tokens, "total_tokens": len(prompt) + completion_tokens},
        # Which weights answered: the durable sampler path of the step (None: the base model).
        "metadata": {"sampler_path": path, "step": step},
    }


# The GenerateReqInput fields score_generate reads; any other field is refused rather than silently ignored.
SCORE_FIELDS = frozenset({"text", "input_ids", "sampling_params", "return_logprob", "logprob_start_len", "lora_path"})


def score_generate(types: Any, slot: SamplerSlot, body: dict[str, Any], loras: LoraSamplers | None = None) -> dict[str, Any]:
    """SGLang's ``/generate`` for prompt log-probs only: ``input_token_logprobs`` from ``logprob_start_len`` on, each
    ``[logprob, token_id, None]``, the entry at ``logprob_start_len`` None as SGLang's is (raises BadRequest, or
    LookupError before there is a sampler)."""
    unknown = sorted(set(body) - SCORE_FIELDS)
    if unknown:
        raise BadRequest(f"/generate: this endpoint only scores; unsupported fields {unknown}")
    sampler, tokenizer, _, _ = _sampler_for(slot, body, loras)
    params = body.get("sampling_params") or {}
    if not isinstance(params, dict) or params.get("max_new_tokens") != 0 or body.get("return_logprob") is not True:
        raise BadRequest("/generate: this endpoint only scores (sampling_params.max_new_tokens 0, return_logprob true)")
    if body.get("input_ids") is not None:
        ids = body["input_ids"]
        if not isinstance(ids, list) or not ids or not all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in ids):
            raise BadRequest("input_ids: a non-empty list of token ids is required")
    elif isinstance(body.get("text"), str) and body["text"]:
        ids = list(tokenizer(body["text"], add_special_tokens=False)["input_ids"])
    else:
        raise BadRequest("/generate: text or input_ids is required")
    start = body.get("logprob_start_len", 0)
    if not isinstance(start, int) or isinstance(start, bool) or not 0 <= start < len(ids):
        raise BadRequest("logprob_start_len: an index into the prompt is required")
    logprobs = sampler.compute_logprobs(types.ModelInput.from_ints(ids)).result()
    if len(logprobs) != len(ids):
        raise RuntimeError(f"compute_logprobs answered {len(logprobs)} entries for {len(ids)} tokens")
    entries = [[None if i == start else lp, ids[i], None] for i, lp in enumerate(logprobs) if i >= start]
    return {
        "text": "",
        "meta_info": {"prompt_tokens": len(ids), "completion_tokens": 0, "input_token_logprobs": entries, "output_token_logprobs": []},
    }


class SamplingServer:
    """The endpoint on a background thread (ThreadingHTTPServer: one thread per request)."""

    def __init__(self, types: Any, slot: SamplerSlot, served_name: str, host: str = "127.0.0.1", port: int = 0, loras: LoraSamplers | None = None):
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, fmt: str, *args: Any) -> None:
                log.debug("%s " + fmt, self.address_string(), *args)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _error(self, status: int, message: str, kind: str) -> None:
                self._send(status, {"error": {"message": message, "type": kind, "code": status}})

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                if self.path == "/health":
                    return self._send(200 if slot.get()[0] is not None else 503, {"ready": slot.get()[0] is not None})
                if self.path == "/v1/models":
                    return self._send(200, {"object": "list", "data": [{"id": served_name, "object": "model", "owned_by": "tinker"}]})
                self._error(404, f"no route {self.path}", "not_found")

            def do_POST(self) -> None:  # noqa: N802
                lora_routes = ("/load_lora_adapter", "/unload_lora_adapter")
                if self.path not in ("/v1/chat/completions", "/generate", *lora_routes) or (self.path in lora_routes and loras is None):
                    return self._error(404, f"no route {self.path}", "not_found")
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                    if not isinstance(body, dict):
                        raise BadRequest("the body must be a JSON object")
                    if self.path == "/load_lora_adapter":
                        loras.load(body.get("lora_name"), body.get("lora_path"))
                        return self._send(200, {"success": True, "error_message": None})
                    if self.path == "/unload_lora_adapter":
                        found = loras.unload(str(body.get("lora_name")))
                        return self._send(200, {"success": found, "error_message": None if found else "not loaded"})
                    if self.path == "/generate":
                        return self._send(200, score_generate(types, slot, body, loras))
                    if body.get("stream"):
                        # The proxy replays a JSON completion as a stream for clients that asked for one.
                        body = {**body, "stream": False}
                    self._send(200, chat_completion(types, slot, body, served_name, loras))
                except (BadRequest, ValueError) as err:
                    self._error(400, str(err), "invalid_request_error")
                except LookupError as err:
                    self._error(503, str(err), "unavailable")
                except Exception as err:  # noqa: BLE001 (a Tinker failure is the upstream's 502 for the proxy)
                    log.exception("sampling failed")
                    self._error(500, f"sampling failed: {err}", "server_error")

        self.slot = slot
        self.loras = loras
        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.host, self.port = host, self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="tinker-serve", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> "SamplingServer":
        self._thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
