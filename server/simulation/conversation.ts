// One simulated user's conversation with the agent, as a script over an abstract `chat` call (the worker
// passes the official OpenAI client aimed at the proxy; tests can pass anything). Every choice — persona,
// questions, approval wording, when to stop, the policy's sampling seed — comes from one seeded RNG, so the
// same seed and the same policy replies give the same conversation.
//
// The persona reacts to each reply as that person would: an approval (often with their next question), or a
// concrete correction that the heuristic judge scores −1 and turns into an OPD hint. A reply that does not answer
// the question asked is rejected too, whatever its style ("no — that doesn't answer my question: …"), so the
// reward cannot be earned by the preference's form alone (grader.ts). Some conversations open
// with the agent runtime's own note lookup (an assistant tool call and its result in the context); a reply that
// itself calls the tool gets the tool's result back. The last message closes the session (X-Session-Done).
import { mulberry32, pick, type Rng } from "../engine/rng";
import { checkReply } from "./grader";
import { questionsFor, STYLE_INSTRUCTIONS, type Persona, type Question } from "./personas";

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type SimMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatRequest {
  messages: SimMessage[];
  tools?: (typeof NOTES_TOOL)[];
  /** the policy's sampling seed (honoured by the embedded engine and by vLLM/SGLang/OpenAI) */
  seed: number;
  /** this request closes the session */
  done: boolean;
  /** only the closing message caps the reply: nobody reads the answer to "thanks, bye" */
  maxTokens?: number;
}

export interface ChatReply {
  content: string;
  toolCalls: ToolCall[];
}

export type ChatFn = (req: ChatRequest) => Promise<ChatReply>;

export interface ConversationEvent {
  kind: "reply" | "tool";
  /** reply: did it respect the persona's hidden preference and answer the question */
  satisfied: boolean | null;
  /** what the user (or the tool) said next */
  reaction: string;
}

export interface ConversationResult {
  persona: string;
  /** main replies the user reacted to (each becomes a judged turn) */
  replies: number;
  satisfied: number;
  corrections: number;
  toolCalls: number;
  events: ConversationEvent[];
}

export const NOTES_TOOL = {
  type: "function" as const,
  function: {
    name: "lookup_notes",
    description: "Look up the user's saved notes on a topic",
    parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
  },
};

/** Share of conversations that open with the agent runtime's note lookup in the context. */
export const TOOL_LOOKUP_RATE = 0.15;
/** After an approval, the chance the user leaves rather than asking another question. */
export const LEAVE_AFTER_APPROVAL = 0.5;
export const CLOSING_MAX_TOKENS = 16;

/** Seeds conversation `index` of a simulation from its seed (independent streams per conversation). */
export function conversationRng(seed: number, index: number): Rng {
  return mulberry32((Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
}

/**
 * A concrete correction in the persona's words: their own, or one of the instructions people use for that
 * preference. It always opens with "no —" so that it reads (and is judged) as a correction, and what follows
 * is the instruction the judge turns into a hint.
 */
export function correctionFor(persona: Persona, rng: Rng): string {
  return pick(rng, correctionsOf(persona));
}

/** Every correction `correctionFor` can give (the pretraining corpus and the compliance bench use them all). */
export function correctionsOf(persona: Persona): string[] {
  return [persona.correction, ...STYLE_INSTRUCTIONS[persona.preference]].map((text) =>
    /^no\b/i.test(text) ? text : `no — ${text.charAt(0).toLowerCase()}${text.slice(1)}`,
  );
}

/** The rejection of a reply that does not answer `question`: the judge's hint is the question itself. */
export function offTopicCorrection(question: Question): string {
  return `no — that doesn't answer my question: ${question.text}`;
}

/**
 * The user's reaction to a reply to `question`: an approval phrase when it is in their style and on topic; else the
 * off-topic rejection (content first: a well-formed reply to another question is no answer), else a style correction.
 */
export function reactionTo(
  persona: Persona,
  question: Question,
  replyText: string,
  rng: Rng,
): { satisfied: boolean; text: string } {
  const check = checkReply(persona, question, replyText);
  if (check.ok) return { satisfied: true, text: pick(rng, persona.approvals) };
  return { satisfied: false, text: check.onTopic ? correctionFor(persona, rng) : offTopicCorrection(question) };
}

/** The user's follow-up after an approval: the approval and their next question in one message. */
export function approvalWithQuestion(approval: string, question: Question): string {
  const sep = /[.!?]$/.test(approval) ? " " : ". ";
  return `${approval}${sep}Next question: ${question.text}`;
}

export function notesResult(question: Question, topic: string): string {
  if (topic !== question.topic) return JSON.stringify({ error: `no notes found for topic "${topic}"` });
  return JSON.stringify({ topic, notes: question.facts });
}

function parseTopic(args: string): string {
  try {
    const v: unknown = JSON.parse(args);
    return v && typeof v === "object" && typeof (v as { topic?: unknown }).topic === "string"
      ? (v as { topic: string }).topic
      : "";
  } catch {
    return "";
  }
}

export interface ConversationOptions {
  persona: Persona;
  rng: Rng;
  chat: ChatFn;
  /** most replies the user reacts to before leaving (the closing reply is extra) */
  maxTurns: number;
  signal?: AbortSignal;
}

export async function runConversation({
  persona,
  rng,
  chat,
  maxTurns,
  signal,
}: ConversationOptions): Promise<ConversationResult> {
  const result: ConversationResult = {
    persona: persona.id,
    replies: 0,
    satisfied: 0,
    corrections: 0,
    toolCalls: 0,
    events: [],
  };
  const unasked = [...questionsFor(persona)];
  const nextQ = (): Question | null =>
    unasked.length ? unasked.splice(Math.floor(rng() * unasked.length), 1)[0] : null;
  const seed = () => Math.floor(rng() * 2 ** 31);

  let question = nextQ()!;
  const messages: SimMessage[] = [{ role: "user", content: question.text }];
  let tools: ChatRequest["tools"];
  if (rng() < TOOL_LOOKUP_RATE) {
    // The agent runtime searched the user's notes before answering: a tool call and its result in context.
    const call: ToolCall = {
      id: "call_notes_0",
      type: "function",
      function: { name: NOTES_TOOL.function.name, arguments: JSON.stringify({ topic: question.topic }) },
    };
    messages.push(
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "tool", tool_call_id: call.id, content: notesResult(question, question.topic) },
    );
    tools = [NOTES_TOOL];
    result.toolCalls++;
  }

  const close = async (text: string) => {
    messages.push({ role: "user", content: text });
    await chat({ messages, tools, seed: seed(), done: true, maxTokens: CLOSING_MAX_TOKENS });
  };

  for (let turn = 0; turn < maxTurns; turn++) {
    if (signal?.aborted) return result;
    const reply = await chat({ messages, tools, seed: seed(), done: false });
    result.replies++;
    if (reply.toolCalls.length) {
      // The model asked for the tool: run it (an unknown topic is an error result) and let it continue.
      messages.push({ role: "assistant", content: reply.content || null, tool_calls: reply.toolCalls });
      for (const call of reply.toolCalls) {
        const content =
          call.function.name === NOTES_TOOL.function.name
            ? notesResult(question, parseTopic(call.function.arguments))
            : JSON.stringify({ error: `unknown tool ${call.function.name}` });
        messages.push({ role: "tool", tool_call_id: call.id, content });
        result.events.push({ kind: "tool", satisfied: null, reaction: content });
      }
      result.toolCalls += reply.toolCalls.length;
      tools = [NOTES_TOOL];
      continue;
    }
    messages.push({ role: "assistant", content: reply.content });
    const last = turn === maxTurns - 1;
    const { satisfied, text: reaction } = reactionTo(persona, question, reply.content, rng);
    if (satisfied) {
      const approval = reaction;
      result.satisfied++;
      const next = last || rng() < LEAVE_AFTER_APPROVAL ? null : nextQ();
      if (!next) {
        result.events.push({ kind: "reply", satisfied, reaction: approval });
        await close(approval);
        return result;
      }
      question = next;
      const text = approvalWithQuestion(approval, next);
      result.events.push({ kind: "reply", satisfied, reaction: text });
      messages.push({ role: "user", content: text });
    } else {
      result.corrections++;
      const correction = reaction;
      result.events.push({ kind: "reply", satisfied, reaction: correction });
      if (last) {
        await close(correction); // gives up: the correction is still the last reply's next state
        return result;
      }
      messages.push({ role: "user", content: correction });
    }
  }
  // Out of turns right after a tool call: hand back the tool's result (its next state) and leave.
  await chat({ messages, tools, seed: seed(), done: true, maxTokens: CLOSING_MAX_TOKENS });
  return result;
}
