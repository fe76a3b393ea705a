"""Leased episode groups (the control plane's ``lease-episodes`` JSON) -> slime ``Sample`` groups for the fork's
``step_wise`` advantage estimator.

One episode becomes one Sample, as the fork's own multi-turn generate functions build them: the prompt is the
first step's prompt rendered with the policy's chat template; the response is every step's sampled tokens
(loss 1, their behaviour log-probs) with what the environment fed back between two steps (the tool messages and
the next generation prompt, rendered with the same template, loss 0, log-prob 0). ``metadata["step_wise"]``
carries what ``RolloutManager._post_process_step_wise_rewards`` reads (OpenClaw-RL f48ac35
``slime/slime/ray/rollout.py``; its semantics are ported and checked in
server/environments/advantages/stepWise.ts): ``step_scores`` (the judge's PRM score of the step, else the
episode's outcome), ``step_token_spans`` ([start, end) of each step's tokens in the response) and
``step_indices``. ``group_index`` is the group's place in the batch, so the estimator normalises per (task group,
step index) over the group's members.

Observations are the difference of two renders that share the history as step k saw it (step k's prompt, and
that prompt cut after step k-1's reply), so a template that rewrites earlier turns (dropping old reasoning)
rewrites both alike. When step k's prompt does not extend step k-1's conversation (the agent trimmed its
history), the episode cannot be one token sequence: its sample keeps the steps before the break
(``metadata["history_break"]``), as the fork's terminal generate starts over after ``--dynamic_history`` trims.

A group leased with fewer DONE members than ``--n-samples-per-prompt`` (a member FAILED: no outcome) is padded
with ``remove_sample`` copies that carry no step, so they add nothing to the estimator's buckets and train no
token; a larger group keeps its first n members.
"""

from __future__ import annotations

from typing import Any

from .convert import Tokenizer, _through_end_of_turn, normalize_messages, sample_fields


def _render(tokenizer: Tokenizer, messages: list[dict[str, Any]], tools: Any, generation_prompt: bool) -> str:
    return tokenizer.apply_chat_template(messages, tools=tools, tokenize=False, add_generation_prompt=generation_prompt)


def _ids(tokenizer: Tokenizer, text: str) -> list[int]:
    return [int(t) for t in tokenizer(text, add_special_tokens=False)["input_ids"]]


def _observation(tokenizer: Tokenizer, previous: dict[str, Any], current: dict[str, Any]) -> str | None:
    """The text between step k-1's reply and step k's: None when step k's prompt does not extend step k-1's."""
    before = normalize_messages(previous["sample"].get("messages") or [])
    now = normalize_messages(current["sample"].get("messages") or [])
    tools = current["sample"].get("tools") or None
    if len(now) <= len(before) + 1 or now[: len(before)] != before:
        return None
    full = _render(tokenizer, now, tools, True)
    cut = _through_end_of_turn(tokenizer, _render(tokenizer, now[: len(before) + 1], tools, False))
    return full[len(cut) :] if full.startswith(cut) else None


def episode_fields(episode: dict[str, Any], tokenizer: Tokenizer, group_index: int, index: int) -> dict[str, Any]:
    """Attributes for ``slime.utils.types.Sample`` (status set by the caller) for one leased episode."""
    steps = episode["steps"]
    first = sample_fields(steps[0]["sample"], tokenizer, "grpo", index)
    prompt_ids = first["tokens"][: len(first["tokens"]) - first["response_length"]]
    response: list[int] = []
    loss_mask: list[int] = []
    logprobs: list[float] = []
    spans: list[list[int]] = []
    scores: list[float] = []
    indices: list[int] = []
    history_break = None
    for k, step in enumerate(steps):
        if k > 0:
            obs = _observation(tokenizer, steps[k - 1], step)
            if obs is None:
                history_break = step["index"]
                break
            obs_ids = _ids(tokenizer, obs)
            response += obs_ids
            loss_mask += [0] * len(obs_ids)
            logprobs += [0.0] * len(obs_ids)
        fields = first if k == 0 else sample_fields(step["sample"], tokenizer, "grpo", index)
        n = fields["response_length"]
        start = len(response)
        response += fields["tokens"][len(fields["tokens"]) - n :]
        loss_mask += fields["loss_mask"]
        logprobs += fields["rollout_log_probs"]
        spans.append([start, start + n])
        scores.append(float(step["score"]))
        indices.append(int(step["index"]))

    decode = getattr(tokenizer, "decode", None)
    kept = steps[: len(spans)]
    metadata: dict[str, Any] = {
        "step_wise": {"step_scores": scores, "step_token_spans": spans, "step_indices": indices},
        "episode_id": episode["episodeId"],
        "turn_ids": [s["sample"]["turnId"] for s in kept],
        "sample_ids": [s["sample"]["sampleId"] for s in kept],
        "outcome": float(episode["outcome"]),
        "truncation": episode.get("truncation"),
    }
    if history_break is not None:
        metadata["history_break"] = history_break
    return {
        "index": index,
        "group_index": group_index,
        "prompt": first["prompt"],
        "tokens": prompt_ids + response,
        "response": decode(response) if callable(decode) else "",
        "response_length": len(response),
        "reward": float(episode["outcome"]),
        "loss_mask": loss_mask,
        "rollout_log_probs": logprobs,
        "weight_versions": sorted({str(s["sample"].get("policyVersion", 0)) for s in kept}),
        "metadata": metadata,
    }


def _padding(fields: dict[str, Any], index: int) -> dict[str, Any]:
    """A member standing in for a FAILED one: no step (the estimator removes it), no token trained."""
    return {
        **fields,
        "index": index,
        "reward": 0.0,
        "loss_mask": [0] * fields["response_length"],
        "remove_sample": True,
        "metadata": {"step_wise": {"step_scores": [], "step_token_spans": [], "step_indices": []}, "padding": True},
    }


def group_fields(group: dict[str, Any], tokenizer: Tokenizer, group_index: int, first_index: int, n: int) -> list[dict[str, Any]]:
    """Exactly ``n`` members' attributes for one leased group (padded or cut, see the module's note)."""
    members = [episode_fields(e, tokenizer, group_index, first_index + i) for i, e in enumerate(group["episodes"][:n])]
    if not members:
        raise ValueError(f"group {group.get('groupKey')} has no episode to train")
    while len(members) < n:
        members.append(_padding(members[0], first_index + len(members)))
    for m in members:
        m["metadata"]["group_key"] = group["groupKey"]
    return members


def make_groups(sample_cls: Any, groups: list[dict[str, Any]], tokenizer: Tokenizer, n: int, first_index: int) -> list[list[Any]]:
    """slime ``Sample`` groups (completed), ``n`` per group, indexed from ``first_index``."""
    out: list[list[Any]] = []
    index = first_index
    for g, group in enumerate(groups):
        samples = []
        # Group indices stay unique across rollouts (indices advance by n per group).
        for fields in group_fields(group, tokenizer, first_index // max(n, 1) + g, index, n):
            sample = sample_cls()
            for name, value in fields.items():
                setattr(sample, name, value)
            sample.status = sample_cls.Status.COMPLETED
            samples.append(sample)
        index += len(samples)
        out.append(samples)
    return out
