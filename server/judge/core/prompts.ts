// Judge prompts. Wording is ours; the semantics follow OpenClaw-RL (`_build_prm_judge_prompt` in `openclaw-rl/openclaw_api_server.py`,
// `_build_hint_judge_messages` in `openclaw-opd/openclaw_opd_api_server.py`): the judge sees the assistant output and the next state with its role, and answers
// in \boxed{} (plus a [HINT_START]…[HINT_END] block for hints). Bump PROMPT_VERSION on any change:
// it is part of the judge version, so old judgments are never mixed with new ones.

export const PROMPT_VERSION = "ocrl-judge-v1";

export type JudgeMessage = { role: "system" | "user"; content: string };

/** The structured view of one turn that both prompts are built from. */
export type JudgeTask = {
  kind: "eval" | "hint";
  responseText: string;
  nextState: { role: string; text: string };
  /** The user's request, only when the experiment lets the judge see it (off by default). */
  requestText: string | null;
};

const PRM_SYSTEM = [
  "You are a process reward model (PRM). Judge whether the AI assistant's output successfully fulfilled the user's intent, using the next state of the conversation as evidence.",
  "",
  "The next state is labelled with its role:",
  "- role `tool`: the output of a tool the assistant called. It exists because the assistant acted, so a successful, non-error tool result is progress. An error or failure reported by the environment is negative.",
  '- role `user`: the user\'s next message. Thanks, approval or confirmed success is positive. A correction ("no, I meant…"), a request to redo or retry, a rephrasing of the same request, or a request to change the output is negative. A change request IS negative feedback.',
  "",
  "Scores:",
  "- \\boxed{1}: progress, thanks, or confirmed success.",
  "- \\boxed{-1}: a redo/retry request, a correction, a rephrased request, or an environment error.",
  "- \\boxed{0}: ambiguous; the next state gives no clear signal.",
  "",
  "Think step by step, then give your final answer as exactly one of \\boxed{1}, \\boxed{-1} or \\boxed{0}.",
].join("\n");

const HINT_SYSTEM = [
  "You are a process reward model used for hindsight hint extraction. You are given the assistant's response at turn t and the next state at turn t+1 with its role (a user reply or a tool/environment output).",
  "Decide whether the next state reveals hindsight that would have helped the assistant give a better response at turn t. Tool output is not something the assistant should have known in advance.",
  "",
  "Output format (strict):",
  "- Give exactly one final decision: \\boxed{1} (useful hindsight) or \\boxed{-1} (none).",
  "- Only when the decision is \\boxed{1}, add a concrete, actionable hint of 1-3 sentences between [HINT_START] and [HINT_END].",
  "- When the decision is \\boxed{-1}, do not write a hint block.",
].join("\n");

function requestSection(task: JudgeTask): string {
  return task.requestText === null ? "" : `## Original request\n${task.requestText}\n\n`;
}

/** PRM (eval) judge messages: answer \boxed{1}, \boxed{-1} or \boxed{0}. */
export function buildEvalMessages(task: Omit<JudgeTask, "kind">): JudgeMessage[] {
  const user =
    requestSection({ ...task, kind: "eval" }) +
    `## Assistant output\n${task.responseText}\n\n` +
    `## Next state [role: ${task.nextState.role}]\n${task.nextState.text}\n\n` +
    "Classify the next state as (a) progress, (b) correction/redo, or (c) ambiguous, then assign \\boxed{1}, \\boxed{-1} or \\boxed{0}.";
  return [
    { role: "system", content: PRM_SYSTEM },
    { role: "user", content: user },
  ];
}

/** Hint judge messages: answer \boxed{1} with a [HINT_START]…[HINT_END] hint, or \boxed{-1}. */
export function buildHintMessages(task: Omit<JudgeTask, "kind">): JudgeMessage[] {
  const user =
    requestSection({ ...task, kind: "hint" }) +
    `## Assistant response (turn t)\n${task.responseText}\n\n` +
    `## Next state (turn t+1) [role: ${task.nextState.role}]\n${task.nextState.text}\n\n` +
    "Now give your decision and, if it is \\boxed{1}, the hint in the required format.";
  return [
    { role: "system", content: HINT_SYSTEM },
    { role: "user", content: user },
  ];
}

export function buildJudgeMessages(task: JudgeTask): JudgeMessage[] {
  return task.kind === "eval" ? buildEvalMessages(task) : buildHintMessages(task);
}
