"""Samples rendered with the real Qwen chat templates (tests/fixtures/chat-templates, with their sources in
SOURCES.md), through the Jinja environment transformers uses (render_reference.py there). On slime the proxy
records no token ids, so the response is re-rendered: the trained ids must be the ones the model sampled,
reasoning included (a thinking model stops at <|im_end|> after `reasoning</think>content`)."""

import importlib.util
import json
import os
import unittest

from integrations.slime.convert import sample_fields

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "fixtures", "chat-templates")
_spec = importlib.util.spec_from_file_location("render_reference", os.path.join(FIXTURES, "render_reference.py"))
render_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(render_reference)


class TemplateTokenizer:
    """A checkpoint's chat template as transformers renders it; token id = code point."""

    eos_token = "<|im_end|>"

    def __init__(self, name, **extra):
        with open(os.path.join(FIXTURES, f"{name}.jinja"), encoding="utf-8") as f:
            self.template = render_reference.compile_template(f.read())
        self.extra = extra

    def apply_chat_template(self, conversation, tools=None, tokenize=False, add_generation_prompt=False):
        return self.template.render(
            messages=conversation, tools=tools, documents=None, add_generation_prompt=add_generation_prompt,
            **render_reference.SPECIAL_TOKENS, **self.extra,
        )

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": [ord(c) for c in text]}


def ids(text):
    return [ord(c) for c in text]


def leased(messages, sampled, content, reasoning=None, tool_calls=None, tools=None):
    """A leased slime sample as the control plane sends it: no token ids, behaviour log-probs per sampled token."""
    return {
        "sampleId": "s", "turnId": "t", "sessionId": "sess", "kind": "RL", "reward": 1, "labelSource": "JUDGE",
        "attempt": 1, "messages": messages, "tools": tools, "responseTokenIds": [], "lossMask": [],
        "response": {"content": content, "reasoning": reasoning, "toolCalls": tool_calls, "finishReason": "stop"},
        "rolloutLogprobs": [-0.01 * (i + 1) for i in range(len(ids(sampled)))], "teacherLogprobs": None,
        "policyVersion": 1, "staleness": 0,
    }


QUESTION = [{"role": "user", "content": "What is 2 + 2?"}]
TOOLS = [{"type": "function", "function": {"name": "ls", "description": "List a directory", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]


class TrainedIdsAreSampledIdsTest(unittest.TestCase):
    def check(self, tokenizer, item, sampled):
        f = sample_fields(item, tokenizer, "grpo", 0)
        prompt = f["prompt"]
        self.assertIn("<|im_start|>assistant\n", prompt[-30:])  # ends with the generation prompt
        self.assertEqual(f["tokens"][: len(prompt)], ids(prompt))
        self.assertEqual(f["tokens"][len(prompt):], ids(sampled))
        self.assertEqual(f["response_length"], len(sampled))
        # Every behaviour log-prob lines up with a sampled token: nothing cut or padded.
        self.assertEqual(f["rollout_log_probs"], item["rolloutLogprobs"])
        return f

    def test_thinking_2507_trains_on_the_reasoning_it_sampled(self):
        reasoning = "The user asks for 2 + 2.\nThat is 4."
        # After the generation prompt `<|im_start|>assistant\n<think>\n` the model wrote this and stopped.
        sampled = reasoning + "\n</think>\n\n" + "4" + "<|im_end|>"
        self.check(TemplateTokenizer("Qwen3-4B-Thinking-2507"), leased(QUESTION, sampled, "4", reasoning), sampled)

    def test_instruct_2507_trains_on_the_reply_and_its_end_of_turn(self):
        sampled = "4<|im_end|>"
        self.check(TemplateTokenizer("Qwen3-4B-Instruct-2507"), leased(QUESTION, sampled, "4"), sampled)

    def test_qwen35_tool_call_with_string_arguments_renders_as_sampled(self):
        history = [
            {"role": "user", "content": "What is in /tmp and /var?"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": json.dumps({"path": "/var"})}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "log"},
        ]
        calls = [{"id": "c2", "type": "function", "function": {"name": "ls", "arguments": json.dumps({"path": "/tmp"})}}]
        reasoning = "Now /tmp."
        sampled = reasoning + "\n</think>\n\n<tool_call>\n<function=ls>\n<parameter=path>\n/tmp\n</parameter>\n</function>\n</tool_call><|im_end|>"
        f = self.check(TemplateTokenizer("Qwen3.5-4B"), leased(history, sampled, "", reasoning, calls, TOOLS), sampled)
        # The recorded history's string arguments were rendered as parameters too.
        self.assertIn("<function=ls>\n<parameter=path>\n/var\n</parameter>", f["prompt"])

    def test_unparseable_arguments_render_as_no_parameters(self):
        calls = [{"id": "c", "type": "function", "function": {"name": "ls", "arguments": "{not json"}}]
        sampled = "x\n</think>\n\n<tool_call>\n<function=ls>\n</function>\n</tool_call><|im_end|>"
        self.check(TemplateTokenizer("Qwen3.5-4B"), leased(QUESTION, sampled, "", "x", calls, TOOLS), sampled)


if __name__ == "__main__":
    unittest.main()
