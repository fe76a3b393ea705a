// Example custom reward module. Point an experiment's judge at it (kind "custom",
// modulePath "custom-reward.ts", relative to EXTENSIONS_DIR) and it replaces the PRM for every turn.
//
// The contract: a default (or `reward`) export, async `(turn, nextState) => {votes, score, hint?}`
// where votes and score are -1, 0 or 1 (a vote may be null when it failed) and `hint` is an optional
// instruction for on-policy distillation (accepted when longer than 10 characters).
//
// This one rewards brevity when the user cares about it: it treats a request for shorter answers as
// a -1 with a hint, a thank-you as +1, an overly long answer as a -1 vote, and anything else as 0.
import type { CustomRewardFn } from "../server/judge/core/customReward";
import { flattenContent } from "../server/judge/core/messages";

const MAX_CHARS = 600;

const reward: CustomRewardFn = async (turn, nextState) => {
  const reply = flattenContent(nextState.content).toLowerCase();
  const tooLong = turn.responseText.length > MAX_CHARS;
  const askedShorter = /\b(shorter|too long|more concise|tl;?dr)\b/.test(reply);
  const thanked = /\b(thanks|thank you|perfect|great)\b/.test(reply);

  // Two independent "votes": what the user said, and whether the answer respected the length budget.
  const userVote = askedShorter ? -1 : thanked ? 1 : 0;
  const lengthVote = tooLong ? -1 : 0;
  const votes = [userVote, lengthVote] as const;
  const score = userVote !== 0 ? userVote : lengthVote;

  return {
    votes: [...votes],
    score,
    hint: askedShorter ? `Keep answers under ${MAX_CHARS} characters and lead with the direct answer.` : null,
  };
};

export default reward;
