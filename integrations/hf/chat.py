"""Chat rendering shared by the tiny model, the trainer and the teacher context.

``render_chatml`` is the Python twin of ``renderChatML`` in ``server/judge/core/teacherClients.ts`` (Qwen-style
ChatML: tools in the system block, assistant tool calls as ``<tool_call>`` JSON, tool results as
``<tool_response>`` in a user turn), so a console teacher that renders a context with its default ChatML and the
tiny model's own template produce the same text, hence the same ids. ``hinted_messages`` is the twin of
``hintedTeacherMessages`` (``server/judge/core/teacher.ts``). Standard library only.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

HINT_MARKER = "[user's hint / instruction]"


def py_json(value: Any) -> str:
    """JSON the way Python's json.dumps writes it (", " and ": "), as HF templates' tojson does."""
    return json.dumps(value, ensure_ascii=False)


def flatten(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") or "" for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def normalize(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """``developer`` becomes ``system``; content becomes plain text (normalizeForTemplate)."""
    out = []
    for m in messages:
        m = dict(m) if isinstance(m, dict) else {"role": "user", "content": str(m)}
        if m.get("role") == "developer":
            m["role"] = "system"
        if m.get("content") is not None:
            m["content"] = flatten(m["content"])
        out.append(m)
    return out


def render_chatml(messages: Sequence[Any], tools: Sequence[Any] | None = None, add_generation_prompt: bool = True) -> str:
    msgs = normalize(messages)
    out = ""
    start = 0
    if tools:
        has_system = bool(msgs) and msgs[0].get("role") == "system"
        system = f"{msgs[0].get('content') or ''}\n\n" if has_system else ""
        start = 1 if has_system else 0
        out += (
            f"<|im_start|>system\n{system}# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
            "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
            + "".join(f"\n{py_json(t)}" for t in tools)
            + "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
            "<tool_call></tool_call> XML tags:\n"
            '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n'
        )
    for i in range(start, len(msgs)):
        m = msgs[i]
        role = m.get("role")
        text = m.get("content") or ""
        if role == "tool":
            first = i == 0 or msgs[i - 1].get("role") != "tool"
            last = i == len(msgs) - 1 or msgs[i + 1].get("role") != "tool"
            out += f"{'<|im_start|>user' if first else ''}\n<tool_response>\n{text}\n</tool_response>{'<|im_end|>' + chr(10) if last else ''}"
            continue
        calls = m.get("tool_calls") if role == "assistant" and isinstance(m.get("tool_calls"), list) else []
        body = text
        for k, call in enumerate(calls):
            fn = (call or {}).get("function") or {}
            args = fn.get("arguments")
            arg_text = args if isinstance(args, str) else py_json(args if args is not None else {})
            sep = "\n" if body or k > 0 else ""
            body += f'{sep}<tool_call>\n{{"name": {json.dumps(fn.get("name") or "", ensure_ascii=False)}, "arguments": {arg_text}}}\n</tool_call>'
        out += f"<|im_start|>{role}\n{body}<|im_end|>\n"
    return out + "<|im_start|>assistant\n" if add_generation_prompt else out


def hinted_messages(messages: Sequence[Any], hint: str) -> list[dict[str, Any]]:
    """The teacher's context: the hint appended to the last user message (hintedTeacherMessages)."""
    hint = hint.strip()
    msgs = [dict(m) for m in normalize(messages)]
    if not msgs:
        return [{"role": "user", "content": f"{HINT_MARKER}\n{hint}"}]
    target = len(msgs) - 1
    for i in range(len(msgs) - 1, -1, -1):
        if msgs[i].get("role") == "user":
            target = i
            break
    msgs[target]["content"] = f"{msgs[target].get('content') or ''}\n\n{HINT_MARKER}\n{hint}".strip()
    return msgs
