"""Leased samples (the control plane's JSON) -> the fields of a slime ``Sample``.

The prompt is rendered with the policy's own chat template (the control plane does not hold the policy
tokenizer), as the reference proxy does. The response keeps the token ids the rollout engine actually
sampled when the control plane recorded them, so behaviour log-probs line up with no re-tokenisation
drift; otherwise it is the full render minus the prompt render, re-tokenised, and log-probs are cut or
zero-padded to fit (the reference's behaviour). That render includes the reply's ``reasoning_content``
(as the reference's ``openclaw-rl/openclaw_api_server.py`` passes SGLang's assistant message whole), so a
thinking model trains on the reasoning it sampled, not on an empty ``<think>`` block, and it ends at the
end-of-turn token the model sampled (the template's newline after it was never sampled).
"""

from __future__ import annotations

import json
from typing import Any, Protocol, Sequence

from integrations.hf.chat import hinted_messages


class Tokenizer(Protocol):
    """The part of a Hugging Face tokenizer this module uses."""

    def apply_chat_template(self, conversation: list[dict[str, Any]], **kwargs: Any) -> Any: ...

    def __call__(self, text: str, **kwargs: Any) -> Any: ...


def normalize_tool_call(call: Any) -> Any:
    """``function.arguments`` as an object: OpenAI clients send a JSON string, and templates that iterate
    it (Qwen3.5's ``arguments|items``) fail on a string. Unparseable arguments become ``{}``, as upstream's
    ``_normalize_tool_call`` (OpenClaw-RL f48ac35 ``openclaw-rl/openclaw_api_server.py``)."""
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        return call
    fn = dict(call["function"])
    if isinstance(fn.get("arguments"), str):
        try:
            fn["arguments"] = json.loads(fn["arguments"])
        except (json.JSONDecodeError, TypeError):
            fn["arguments"] = {}
    return {**call, "function": fn}


def normalize_messages(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """``developer`` becomes ``system``; multimodal content lists keep only their text parts; tool-call
    arguments become objects."""
    out = []
    for message in messages:
        m = dict(message) if isinstance(message, dict) else {"role": "user", "content": str(message)}
        if m.get("role") == "developer":
            m["role"] = "system"
        content = m.get("content")
        if isinstance(content, list):
            m["content"] = " ".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
        elif content is not None and not isinstance(content, str):
            m["content"] = str(content)
        if isinstance(m.get("tool_calls"), list):
            m["tool_calls"] = [normalize_tool_call(c) for c in m["tool_calls"]]
        out.append(m)
    return out


def fit(values: Sequence[float] | None, n: int, pad: float = 0.0) -> list[float]:
    """``values`` cut or padded with ``pad`` to length ``n``."""
    vals = [float(v) for v in (values or [])][:n]
    return vals + [pad] * (n - len(vals))


def _ids(tokenizer: Tokenizer, text: str) -> list[int]:
    return [int(t) for t in tokenizer(text, add_special_tokens=False)["input_ids"]]


def _response_message(leased: dict[str, Any]) -> dict[str, Any]:
    """The assistant message as SGLang returned it (content, reasoning_content, tool_calls)."""
    r = leased.get("response") or {}
    message: dict[str, Any] = {"role": "assistant", "content": r.get("content") or ""}
    if r.get("reasoning"):
        message["reasoning_content"] = r["reasoning"]
    if r.get("toolCalls"):
        message["tool_calls"] = r["toolCalls"]
    return normalize_messages([message])[0]


def _through_end_of_turn(tokenizer: Tokenizer, text: str) -> str:
    """``text`` cut after its final end-of-turn token: what follows it in a render (a newline) is template
    layout the model never sampled (it stopped at that token)."""
    eos = getattr(tokenizer, "eos_token", None)
    if isinstance(eos, str) and eos:
        stripped = text.rstrip()
        if stripped.endswith(eos):
            return stripped
    return text


def sample_fields(leased: dict[str, Any], tokenizer: Tokenizer, method: str, index: int, teacher_source: str = "inference", max_cand: int | None = None) -> dict[str, Any]:
    """Attributes for ``slime.utils.types.Sample`` (status is set by the caller, it is an enum of slime's):
    its fields, plus ``teacher_log_probs`` when there is a teacher (an attribute the fork's RolloutManager
    ships, tests/fixtures/slime/sample-contract.json). With the in-job PRM teacher (``teacher_source``
    ``megatron``, method combine; always for method topk, whose teacher is the in-job one and which ships no
    ``teacher_log_probs``) every sample also carries ``teacher_tokens``: the hinted prompt (the turn's
    hint appended to the last user message, as the control plane's teacher renders it) + the response ids,
    or the sample's own tokens when it has no hint, as upstream's ``openclaw_combine_api_server.py`` does.

    ``max_cand`` (the hybrid: method combine with the topk estimator, upstream's ``OPENCLAW_TOPK_MAX_CAND``) adds
    ``teacher_tokens_candidates``, one hinted sequence per accepted hint candidate, shortest first and at most
    ``max_cand`` (the judge's ``hintCandidates``, or its one hint), or the sample's own tokens when it has no hint;
    ``teacher_tokens`` is candidate 0, as upstream's ``openclaw_combine_select_api_server.py`` sets them. The fork's
    actor then runs the teacher once per candidate (sample-contract.json ``hybrid.actor``)."""
    messages = normalize_messages(leased.get("messages") or [])
    tools = leased.get("tools") or None
    prompt_text = tokenizer.apply_chat_template(messages, tools=tools, tokenize=False, add_generation_prompt=True)
    prompt_ids = _ids(tokenizer, prompt_text)

    recorded = [int(t) for t in leased.get("responseTokenIds") or []]
    if recorded:
        response_ids = recorded
        decode = getattr(tokenizer, "decode", None)
        response_text = decode(recorded) if callable(decode) else (leased.get("response") or {}).get("content") or ""
        loss_mask = [int(m) for m in fit(leased.get("lossMask"), len(recorded), pad=1.0)]
    else:
        full = tokenizer.apply_chat_template(messages + [_response_message(leased)], tools=tools, tokenize=False, add_generation_prompt=False)
        response_text = _through_end_of_turn(tokenizer, full[len(prompt_text):] if full.startswith(prompt_text) else full)
        response_ids = _ids(tokenizer, response_text)
        loss_mask = [1] * len(response_ids)
    n = len(response_ids)
    rollout_lp = fit(leased.get("rolloutLogprobs"), n)

    kind = leased.get("kind", "RL")
    hint = leased.get("hint") if kind != "RL" else None
    teacher: list[float] | None = None
    if method == "topk":
        # Top-K OPD takes the teacher from the in-job PRM teacher (teacher_tokens below), never shipped
        # log-probs; like OPD, a sample without a hint has no teacher context and trains no token.
        if not hint:
            loss_mask = [0] * n
    elif method != "grpo":
        if kind == "RL":
            # Combine trains RL-only samples with the behaviour log-probs as teacher (its OPD term is ~0).
            teacher = rollout_lp
        elif leased.get("teacherLogprobs") is not None:
            teacher = fit(leased["teacherLogprobs"], n)
        elif method == "combine":
            # A reviewer's hint not scored by a teacher yet: keep the RL term, no OPD term.
            teacher = rollout_lp
        else:
            # OPD with no teacher log-probs has nothing to distil: the sample trains no token.
            teacher = rollout_lp
            loss_mask = [0] * n

    fields: dict[str, Any] = {
        "index": index,
        "group_index": index,
        "prompt": prompt_text,
        "tokens": prompt_ids + response_ids,
        "response": response_text,
        "response_length": n,
        "reward": float(leased.get("reward", 0.0)),
        "loss_mask": loss_mask,
        "rollout_log_probs": rollout_lp,
        "weight_versions": [str(leased.get("policyVersion", 0))],
        "metadata": {
            "session_id": leased.get("sessionId"),
            "sample_id": leased.get("sampleId"),
            "turn_id": leased.get("turnId"),
            "kind": kind,
            "label_source": leased.get("labelSource"),
            "policy_version": leased.get("policyVersion"),
            "staleness": leased.get("staleness"),
            "attempt": leased.get("attempt"),
        },
    }
    # ``teacher_log_probs`` is not a field of the fork's Sample: RolloutManager ships it whenever the first
    # sample carries the attribute, and the Megatron actor takes len() of each value, so a GRPO batch must
    # not carry it at all (None would crash the first train step).
    if teacher is not None:
        fields["teacher_log_probs"] = teacher
    if method == "topk" or (method == "combine" and teacher_source == "megatron"):
        def hinted_ids(h: str) -> list[int]:
            hinted = tokenizer.apply_chat_template(hinted_messages(messages, h), tools=tools, tokenize=False, add_generation_prompt=True)
            return _ids(tokenizer, hinted) + response_ids

        if max_cand is not None and method == "combine":
            # The judge sends every accepted hint (shortest first) only when its hint is candidate 0; else its one hint.
            hints = (leased.get("hintCandidates") or [hint])[:max_cand] if hint else []
            candidates = [hinted_ids(h) for h in hints] or [prompt_ids + response_ids]
            fields["teacher_tokens_candidates"] = candidates
            fields["teacher_tokens"] = candidates[0]
        else:
            fields["teacher_tokens"] = hinted_ids(hint) if hint else prompt_ids + response_ids
    return fields
