"""The one HTTP server of an ``hf-local`` run (standard library ``http.server``, one thread per request, the
batching queue behind it):

- ``POST /v1/chat/completions`` (streaming SSE or not, ``tools`` passed to the chat template): the policy,
  answered by the serving copy of the adapter. Each choice carries ``token_ids`` and
  ``logprobs.content[].logprob`` (streamed: per chunk), the shape ``server/proxy/accumulate.ts`` reads, so the
  proxy records exactly the sampled ids and their behaviour log-probs.
- ``/base/v1/chat/completions``, ``/base/tokenize``, ``/base/generate`` (and ``/tokenize``, ``/generate`` at the
  root): the frozen base (adapter off), as an SGLang engine: the run reports ``<root>/base/v1`` as its PRM URL,
  so the judge votes there and the teacher clients (``createSglangTeacher``) score there, unchanged.
  ``/generate`` follows SGLang's log-prob convention: ``meta_info.input_token_logprobs`` holds one
  ``[logprob, id, None]`` per input position from ``logprob_start_len`` on, the first entry's log-prob ``None``
  (SGLang ``_process_input_token_logprobs``: ``[None] + raw[:-1]``), so entry j is log p(ids[start+j] | prefix).

Reasoning (``<think>…</think>``) and Qwen/Hermes ``<tool_call>`` blocks are parsed as the Tinker bridge's
endpoint parses them (``integrations/tinker/serve.py parse_message``).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import torch

from integrations.tinker.serve import parse_message

from .generate import BatchQueue, SamplingParams
from .model import AdapterSlots, ChatModel

log = logging.getLogger("openclaw.hf.serve")

DEFAULT_MAX_TOKENS = 1024
MAX_BODY = 8 * 1024 * 1024
TAGS = ("<tool_call>", "<think>")


class BadRequest(Exception):
    pass


def _int(body: dict[str, Any], *names: str, default: int, low: int = 0, high: int = 1 << 20) -> int:
    for name in names:
        if body.get(name) is not None:
            v = body[name]
            if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
                raise BadRequest(f"{name}: an integer from {low} to {high} is required")
            return v
    return default


def _float(body: dict[str, Any], name: str, default: float, low: float, high: float) -> float:
    v = body.get(name, default)
    if v is None:
        return default
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not low <= v <= high:
        raise BadRequest(f"{name}: a number from {low} to {high} is required")
    return float(v)


def _ids(value: Any, vocab: int, name: str) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(t, int) and not isinstance(t, bool) and 0 <= t < vocab for t in value):
        raise BadRequest(f"{name}: a list of token ids below {vocab} is required")
    return list(value)


def emittable(text: str) -> tuple[int, bool]:
    """How much of streamed ``text`` can go out as content now, and whether a reasoning/tool-call tag began
    (from then on the rest is parsed at the end). A possible partial tag or a partial UTF-8 character waits."""
    found = [i for i in (text.find(t) for t in TAGS) if i >= 0]
    if found:
        return min(found), True
    n = len(text.rstrip("\ufffd"))
    for k in range(min(n, max(len(t) for t in TAGS) - 1), 0, -1):
        if any(t.startswith(text[n - k : n]) for t in TAGS):
            return n - k, False
    return n, False


class _Listener(ThreadingHTTPServer):
    # http.server's listen backlog is 5. On the first GPU run (H200, the device check's 16 leased samples and
    # 4 load threads at once, the accept loop sharing the GIL with decoding) a request beyond it was reset by
    # the peer; the console's proxy sends such bursts too. SGLang's server (uvicorn) listens with 2048.
    request_queue_size = 1024


class HfServer:
    def __init__(self, model: ChatModel, slots: AdapterSlots, batcher: BatchQueue, served_name: str, host: str = "127.0.0.1", port: int = 0):
        self.model, self.slots, self.batcher, self.served_name = model, slots, batcher, served_name
        self.requests = 0
        self.failures = 0
        self._count = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, fmt: str, *args: Any) -> None:
                log.debug("%s " + fmt, self.address_string(), *args)

            def _send(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _error(self, status: int, message: str, kind: str) -> None:
                self._send(status, {"error": {"message": message, "type": kind, "code": status}})

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                path = self.path.split("?")[0]
                if path == "/health":
                    return self._send(200, {"ready": True, "version": server.slots.version, "checkpoint": server.slots.checkpoint})
                if path in ("/v1/models", "/base/v1/models"):
                    return self._send(200, {"object": "list", "data": [{"id": server.served_name, "object": "model", "owned_by": "hf-local"}]})
                self._error(404, f"no route {path}", "not_found")

            def do_POST(self) -> None:  # noqa: N802
                path = self.path.split("?")[0]
                base = path.startswith("/base/")
                route = path[len("/base") :] if base else path
                with server._count:
                    server.requests += 1
                try:
                    length = int(self.headers.get("content-length") or 0)
                    if length > MAX_BODY:
                        raise BadRequest(f"the body is over {MAX_BODY} bytes")
                    body = json.loads(self.rfile.read(length) or b"{}")
                    if not isinstance(body, dict):
                        raise BadRequest("the body must be a JSON object")
                    if route == "/v1/chat/completions":
                        if body.get("stream"):
                            return server.stream_chat(self, body, base)
                        return self._send(200, server.chat(body, base))
                    if route in ("/tokenize", "/v1/tokenize"):
                        return self._send(200, server.tokenize(body))
                    if route == "/generate" and (base or path == "/generate"):
                        return self._send(200, server.sglang_generate(body))
                    return self._error(404, f"no route {path}", "not_found")
                except (BadRequest, ValueError) as err:
                    self._error(400, str(err), "invalid_request_error")
                except Exception as err:  # noqa: BLE001 (the proxy sees an upstream 500)
                    with server._count:
                        server.failures += 1
                    log.exception("request failed")
                    self._error(500, f"generation failed: {err}", "server_error")

        self.httpd = _Listener((host, port), Handler)
        self.httpd.daemon_threads = True
        self.host, self.port = host, self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="hf-serve", daemon=True)

    # -- addresses --------------------------------------------------------------------------------------
    @property
    def root(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.root}/v1"

    @property
    def base_url(self) -> str:
        return f"{self.root}/base/v1"

    def start(self) -> "HfServer":
        self._thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- requests ---------------------------------------------------------------------------------------
    def _prompt(self, body: dict[str, Any]) -> list[int]:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise BadRequest("messages: a non-empty list is required")
        tools = body.get("tools") or None
        if tools is not None and not isinstance(tools, list):
            raise BadRequest("tools: a list is required")
        return self.model.encode(self.model.render(messages, tools, add_generation_prompt=True))

    def _params(self, body: dict[str, Any]) -> SamplingParams:
        stop = body.get("stop")
        if stop:
            raise BadRequest("stop: stop strings are not supported; the turn ends at the template's end of turn")
        return SamplingParams(
            max_tokens=_int(body, "max_completion_tokens", "max_tokens", default=DEFAULT_MAX_TOKENS, low=1, high=32768),
            temperature=_float(body, "temperature", 1.0, 0.0, 2.0),
            top_p=_float(body, "top_p", 1.0, 0.0, 1.0) or 1.0,
            top_k=_int(body, "top_k", default=-1, low=-1, high=1 << 20),
            seed=_int(body, "seed", default=-1, low=-1, high=2**63 - 1) if body.get("seed") is not None else None,
            stop_ids=self.model.eos_ids,
        )

    def _visible(self, ids: list[int], finish: str) -> list[int]:
        # The end-of-turn token ends the reply; it is not part of the text the client sees (it stays in token_ids).
        return ids[:-1] if finish == "stop" and ids and ids[-1] in self.model.eos_ids else ids

    def chat(self, body: dict[str, Any], base: bool) -> dict[str, Any]:
        if body.get("n", 1) != 1:
            raise BadRequest("n: only 1 is supported")
        prompt = self._prompt(body)
        g = self.batcher.submit(prompt, self._params(body), base=base).result()
        message = parse_message(self.model.decode(self._visible(g.ids, g.finish_reason)))
        want_lp = body.get("logprobs") is not False
        choice = {
            "index": 0,
            "message": message,
            "finish_reason": "tool_calls" if "tool_calls" in message else g.finish_reason,
            "token_ids": g.ids,
            "logprobs": {"content": [self._lp_entry(t, lp) for t, lp in zip(g.ids, g.logprobs)]} if want_lp else None,
        }
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.served_name,
            "choices": [choice],
            "usage": {"prompt_tokens": len(prompt), "completion_tokens": len(g.ids), "total_tokens": len(prompt) + len(g.ids)},
            "metadata": {"weight_version": None if base else g.version, "base": base},
        }

    def _lp_entry(self, token: int, lp: float) -> dict[str, Any]:
        return {"token": self.model.token_text(token), "logprob": lp, "bytes": None, "top_logprobs": []}

    def stream_chat(self, handler: BaseHTTPRequestHandler, body: dict[str, Any], base: bool) -> None:
        prompt = self._prompt(body)
        params = self._params(body)
        tokens: queue.Queue[tuple[int, float] | None] = queue.Queue()
        future = self.batcher.submit(prompt, params, base=base, on_token=lambda t, lp: tokens.put((t, lp)))
        future.add_done_callback(lambda _f: tokens.put(None))
        cid, created = f"chatcmpl-{uuid.uuid4().hex[:16]}", int(time.time())

        def chunk(delta: dict[str, Any], **extra: Any) -> bytes:
            payload = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": self.served_name,
                       "choices": [{"index": 0, "delta": delta, **extra}]}
            return f"data: {json.dumps(payload)}\n\n".encode("utf-8")

        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        handler.send_header("connection", "close")
        handler.end_headers()
        handler.close_connection = True
        w = handler.wfile
        w.write(chunk({"role": "assistant", "content": ""}))
        ids: list[int] = []
        sent, held = 0, False
        while (item := tokens.get()) is not None:
            tok, lp = item
            ids.append(tok)
            delta: dict[str, Any] = {}
            if not held and tok not in self.model.eos_ids:
                text = self.model.decode(ids)
                cut, held = emittable(text)
                if cut > sent:
                    delta["content"] = text[sent:cut]
                    sent = cut
            w.write(chunk(delta, token_ids=[tok], logprobs={"content": [self._lp_entry(tok, lp)]}))
            w.flush()
        try:
            g = future.result()
        except Exception as err:  # noqa: BLE001 (the headers are out: the stream ends with an error event)
            with self._count:
                self.failures += 1
            log.exception("streamed generation failed")
            w.write(f"data: {json.dumps({'error': {'message': f'generation failed: {err}', 'type': 'server_error'}})}\n\n".encode())
            w.write(b"data: [DONE]\n\n")
            return
        final: dict[str, Any] = {}
        if held:
            message = parse_message(self.model.decode(self._visible(g.ids, g.finish_reason)))
            if message.get("reasoning_content"):
                final["reasoning_content"] = message["reasoning_content"]
            rest = message.get("content") or ""
            streamed = self.model.decode(ids)[:sent]
            final["content"] = rest[len(streamed):] if rest.startswith(streamed) else rest
            if message.get("tool_calls"):
                final["tool_calls"] = message["tool_calls"]
            finish = "tool_calls" if "tool_calls" in message else g.finish_reason
        else:
            text = self.model.decode(self._visible(g.ids, g.finish_reason))
            if len(text) > sent:
                final["content"] = text[sent:]
            finish = g.finish_reason
        w.write(chunk(final, finish_reason=finish))
        usage = {"prompt_tokens": len(prompt), "completion_tokens": len(g.ids), "total_tokens": len(prompt) + len(g.ids)}
        w.write(f"data: {json.dumps({'id': cid, 'object': 'chat.completion.chunk', 'created': created, 'model': self.served_name, 'choices': [], 'usage': usage})}\n\n".encode())
        w.write(b"data: [DONE]\n\n")
        w.flush()

    def tokenize(self, body: dict[str, Any]) -> dict[str, Any]:
        if isinstance(body.get("messages"), list):
            text = self.model.render(body["messages"], body.get("tools") or None, bool(body.get("add_generation_prompt", True)))
        else:
            text = body.get("prompt", body.get("text"))
            if not isinstance(text, str):
                raise BadRequest("prompt: a string is required")
        tokens = self.model.encode(text)
        return {"tokens": tokens, "count": len(tokens), "max_model_len": getattr(self.model, "max_positions", None)}

    def sglang_generate(self, body: dict[str, Any]) -> dict[str, Any]:
        """SGLang's native ``/generate`` on the frozen base: scoring (``max_new_tokens`` 0) and sampling."""
        if body.get("input_ids") is not None:
            ids = _ids(body["input_ids"], self.model.vocab_size, "input_ids")
        elif isinstance(body.get("text"), str):
            ids = self.model.encode(body["text"])
        else:
            raise BadRequest("input_ids or text is required")
        if not ids:
            raise BadRequest("input_ids: at least one token is required")
        sp = body.get("sampling_params") or {}
        if not isinstance(sp, dict):
            raise BadRequest("sampling_params: an object is required")
        new = _int(sp, "max_new_tokens", default=128, low=0, high=32768)
        start = _int(body, "logprob_start_len", default=-1, low=-1, high=len(ids) - 1)
        start = len(ids) - 1 if start < 0 else start
        meta: dict[str, Any] = {"prompt_tokens": len(ids), "completion_tokens": 0, "finish_reason": {"type": "length", "length": 0}}
        out_ids: list[int] = []
        if body.get("return_logprob"):
            with torch.no_grad():
                x = torch.tensor([ids], device=self.model.device)
                logp = torch.log_softmax(self.model.logits(x, torch.ones_like(x), None)[0].float(), -1)
            raw = logp[:-1].gather(-1, x[0, 1:, None])[:, 0].tolist()  # raw[k] = log p(ids[k+1] | ids[:k+1])
            meta["input_token_logprobs"] = [[None, ids[start], None]] + [[raw[k - 1], ids[k], None] for k in range(start + 1, len(ids))]
        if new > 0:
            params = SamplingParams(max_tokens=new, temperature=_float(sp, "temperature", 1.0, 0.0, 2.0), stop_ids=self.model.eos_ids)
            g = self.batcher.submit(ids, params, base=True).result()
            out_ids = g.ids
            meta["completion_tokens"] = len(g.ids)
            meta["finish_reason"] = {"type": g.finish_reason, "length": len(g.ids)}
            if body.get("return_logprob"):
                meta["output_token_logprobs"] = [[lp, t, None] for t, lp in zip(g.ids, g.logprobs)]
        return {"text": self.model.decode(out_ids), "output_ids": out_ids, "meta_info": meta}
