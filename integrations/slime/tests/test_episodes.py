"""Leased episode groups -> slime Samples for the fork's step_wise estimator (integrations/slime/episodes.py),
against the fork's extracted ``Sample`` contract (tests/fixtures/slime/sample-contract.json)."""

import unittest

from integrations.slime.episodes import group_fields, make_groups
from fakes import SAMPLE_CLASSES, CharTokenizer, sample_contract, train_data

COMMITS = sample_contract()["commits"]
TASK = {"role": "user", "content": "count the errors"}


class EosTokenizer(CharTokenizer):
    """A ChatML-like template whose turns end in an end-of-turn token followed by template layout (a newline)."""

    eos_token = "<|end|>"

    def apply_chat_template(self, conversation, tools=None, tokenize=False, add_generation_prompt=False):
        text = "".join(f"<|{m['role']}|>{m.get('content') or ''}<|end|>\n" for m in conversation)
        return text + ("<|assistant|>" if add_generation_prompt else "")


def step(m, i, score, history=None):
    """Step i of member m, recorded as the proxy stores it: the prompt the agent sent (the task, then each earlier
    command and its output as a tool message), the sampled tokens and their log-probs."""
    messages = history if history is not None else [TASK] + [x for j in range(i) for x in ({"role": "assistant", "content": f"cmd{m}{j}"}, {"role": "tool", "content": f"out{m}{j}"})]
    sample = {
        "sampleId": f"s{m}{i}", "turnId": f"t{m}{i}", "sessionId": f"episode-e{m}-1", "kind": "RL", "reward": 0.0,
        "labelSource": "JUDGE", "attempt": 1, "messages": messages, "tools": None,
        "response": {"content": f"cmd{m}{i}", "toolCalls": None, "reasoning": None, "finishReason": "stop"},
        "responseTokenIds": [900 + i, 901 + i], "lossMask": [1, 1], "rolloutLogprobs": [-0.5, -0.25],
        "teacherLogprobs": None, "hint": None, "hintCandidates": None, "policyVersion": 2, "staleness": 0,
    }
    return {"index": i, "prmScore": None, "score": score, "advantage": None, "sample": sample}


def episode(m, outcome, scores):
    return {"episodeId": f"e{m}", "sampleIndex": m, "outcome": outcome, "estimator": "step_wise", "truncation": None,
            "steps": [step(m, i, s) for i, s in enumerate(scores)]}


def group(*episodes, failed=0):
    return {"groupKey": "launch:task", "taskId": "task", "taskKey": "examples/count-errors", "failed": failed, "episodes": list(episodes)}


class EpisodeSampleTest(unittest.TestCase):
    def test_one_sample_per_episode_with_step_spans_over_the_sampled_tokens(self):
        [fields] = group_fields(group(episode(0, 1.0, [0.5, 1.0])), EosTokenizer(), group_index=3, first_index=7, n=1)
        prompt = EosTokenizer().apply_chat_template([TASK], add_generation_prompt=True)
        self.assertEqual(fields["prompt"], prompt)
        response = fields["tokens"][len(prompt):]
        self.assertEqual(len(response), fields["response_length"])
        meta = fields["metadata"]["step_wise"]
        self.assertEqual(meta["step_scores"], [0.5, 1.0])
        self.assertEqual(meta["step_indices"], [0, 1])
        spans = meta["step_token_spans"]
        self.assertEqual([response[a:b] for a, b in spans], [[900, 901], [901, 902]])
        # Between the steps: the layout after the sampled end-of-turn, the tool message and the next generation
        # prompt, never trained.
        between = "".join(chr(t) for t in response[spans[0][1]:spans[1][0]])
        self.assertEqual(between, "\n<|tool|>out00<|end|>\n<|assistant|>")
        self.assertEqual([fields["loss_mask"][a:b] for a, b in spans], [[1, 1], [1, 1]])
        self.assertEqual(sum(fields["loss_mask"]), 4)
        self.assertEqual(fields["rollout_log_probs"][spans[1][0]:spans[1][1]], [-0.5, -0.25])
        self.assertEqual(set(fields["rollout_log_probs"][spans[0][1]:spans[1][0]]), {0.0})
        self.assertEqual((fields["group_index"], fields["index"], fields["reward"]), (3, 7, 1.0))
        self.assertEqual(fields["metadata"]["turn_ids"], ["t00", "t01"])

    def test_a_trimmed_history_keeps_the_steps_before_the_break(self):
        e = episode(0, 0.0, [0.1, 0.2, 0.3])
        e["steps"][2] = step(0, 2, 0.3, history=[TASK, {"role": "tool", "content": "summary"}])
        [fields] = group_fields(group(e), CharTokenizer(), 0, 0, 1)
        self.assertEqual(fields["metadata"]["history_break"], 2)
        self.assertEqual(fields["metadata"]["step_wise"]["step_scores"], [0.1, 0.2])
        self.assertEqual(fields["metadata"]["turn_ids"], ["t00", "t01"])

    def test_a_group_short_of_n_is_padded_with_removed_members_that_carry_no_step(self):
        fields = group_fields(group(episode(0, 1.0, [1.0]), episode(1, 0.0, [0.0]), failed=2), CharTokenizer(), 0, 0, 4)
        self.assertEqual([f.get("remove_sample", False) for f in fields], [False, False, True, True])
        self.assertEqual([f["index"] for f in fields], [0, 1, 2, 3])
        for pad in fields[2:]:
            self.assertEqual(pad["metadata"]["step_wise"]["step_scores"], [])
            self.assertEqual(sum(pad["loss_mask"]), 0)

    def test_every_commit_s_sample_takes_the_fields_and_the_actor_accepts_the_batch(self):
        groups = [group(episode(0, 1.0, [0.5, 1.0]), episode(1, 0.0, [0.0, 0.0, 0.0])), group(episode(2, 1.0, [1.0]))]
        for cls, commit in zip(SAMPLE_CLASSES, COMMITS):
            with self.subTest(commit=commit["commit"][:7]):
                out = make_groups(cls, groups, CharTokenizer(), n=2, first_index=4)
                self.assertEqual([len(g) for g in out], [2, 2])
                self.assertEqual([s.group_index for g in out for s in g], [2, 2, 3, 3])
                flat = [s for g in out for s in g]
                data = train_data(flat, commit)
                self.assertEqual(data["response_lengths"], [len(m) for m in data["loss_masks"]])
                self.assertNotIn("teacher_log_probs", data)
                self.assertEqual(flat[0].status, cls.Status.COMPLETED)


if __name__ == "__main__":
    unittest.main()
