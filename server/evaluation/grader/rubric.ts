// The rubric prompt for the model-judge grader. It answers in the judge's own \boxed{} format, so the judge
// core's parser (parseEvalVote) and vote aggregation (meanVote) are reused unchanged. Bump
// RUBRIC_PROMPT_VERSION on any wording change: it is part of the grader version.
import type { JudgeMessage } from "../../judge/core/prompts";

export const RUBRIC_PROMPT_VERSION = "ocrl-rubric-v1";

const SYSTEM = [
  "You grade an AI assistant's reply to a conversation against a rubric (and a reference answer when one is given).",
  "Scores:",
  "- \\boxed{1}: the reply meets the rubric.",
  "- \\boxed{0}: it partly meets it.",
  "- \\boxed{-1}: it fails the rubric.",
  "Think step by step, then give your final answer as exactly one of \\boxed{1}, \\boxed{0} or \\boxed{-1}.",
].join("\n");

const DEFAULT_RUBRIC =
  "The reply answers the user's last message correctly, helpfully and in the form the user asked for.";

export function buildRubricMessages(p: {
  conversation: string;
  reply: string;
  rubric: string | null;
  reference: string | null;
}): JudgeMessage[] {
  const user =
    `## Conversation\n${p.conversation}\n\n` +
    `## Assistant reply\n${p.reply}\n\n` +
    (p.reference ? `## Reference answer\n${p.reference}\n\n` : "") +
    `## Rubric\n${p.rubric ?? DEFAULT_RUBRIC}\n\n` +
    "Grade the reply: \\boxed{1}, \\boxed{0} or \\boxed{-1}.";
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: user },
  ];
}
