// What a judge backend is: something that answers judge messages with text (backends.ts builds the model-server
// one, heuristic.ts is the embedded one). Its own file so that a backend and the factory choosing between them do
// not import each other.
import type { JudgeMessage, JudgeTask } from "./prompts";

export type CompleteOptions = {
  temperature: number;
  maxTokens: number;
  signal?: AbortSignal;
  /** The structured turn the messages were built from. Model backends ignore it; the heuristic reads it. */
  task?: JudgeTask;
};

export interface JudgeBackend {
  readonly kind: "openai" | "heuristic";
  readonly model: string;
  /** Breaker key: one circuit per endpoint. */
  readonly endpoint: string;
  complete(messages: JudgeMessage[], opts: CompleteOptions): Promise<string>;
}
