// One experiment's simulated users: starts conversation 0, 1, 2, … at `perMinute` (a token bucket that never
// bursts above `concurrency`), never more than `concurrency` at once, and backs off while conversations fail
// (the proxy not up yet, the experiment archived). Conversation k is fully determined by (seed, k) and the
// policy's replies, so a given seed replays the same users, questions and reactions.
import { getPersona } from "./personas";
import { pick } from "../engine/rng";
import type { SimulationStats } from "../platform/bus/contracts";
import { conversationRng, runConversation, type ChatFn, type ConversationResult } from "./conversation";
import type { SimulationSettings } from "./schemas";

/** Builds the chat function of conversation `sessionId` (the worker: the OpenAI client through the proxy). */
export type ChatFactory = (conv: { sessionId: string; persona: string; signal: AbortSignal }) => ChatFn;

/** The persona and session id of conversation k (the persona is the first draw of its RNG). */
export function conversationPlan(settings: SimulationSettings, k: number, nonce: string) {
  const rng = conversationRng(settings.seed, k);
  const persona = getPersona(pick(rng, settings.personas));
  return { rng, persona, sessionId: `sim-${persona.id}-${nonce}-${k}` };
}

/** Runs conversation k to its end. */
export async function simulateConversation(
  settings: SimulationSettings,
  k: number,
  nonce: string,
  chatFor: ChatFactory,
  signal: AbortSignal,
): Promise<ConversationResult> {
  const { rng, persona, sessionId } = conversationPlan(settings, k, nonce);
  // A signal of its own: the client hangs a listener on it per request, which must not pile up on the long-lived one.
  const own = new AbortController();
  const abort = () => own.abort();
  signal.addEventListener("abort", abort, { once: true });
  try {
    return await runConversation({
      persona,
      rng,
      chat: chatFor({ sessionId, persona: persona.id, signal: own.signal }),
      maxTurns: settings.maxTurns,
      signal: own.signal,
    });
  } finally {
    signal.removeEventListener("abort", abort);
  }
}

const RATE_WINDOW_MS = 30_000;
const MAX_BACKOFF_MS = 30_000;

export class ExperimentSimulation {
  private next = 0;
  private credit = 1; // the first conversation starts at once
  private lastRefill: number;
  private readonly active = new Map<number, Promise<void>>();
  private readonly controller = new AbortController();
  private failures = 0;
  private backoffUntil = 0;
  private readonly turnTimes: number[] = [];
  private readonly counts = { sessions: 0, turns: 0, approvals: 0, corrections: 0, toolCalls: 0, errors: 0 };
  private lastError: string | null = null;

  constructor(
    readonly experimentId: string,
    private settings: SimulationSettings,
    private readonly chatFor: ChatFactory,
    /** distinguishes this run's session ids from an earlier run with the same seed */
    private readonly nonce: string,
    private readonly log: (msg: string) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {
    this.lastRefill = now();
  }

  get activeCount(): number {
    return this.active.size;
  }

  /** New rate, concurrency, personas or turn limit apply to conversations started from now on. */
  update(settings: SimulationSettings): void {
    this.settings = settings;
  }

  sameSequence(settings: SimulationSettings): boolean {
    return settings.seed === this.settings.seed;
  }

  /**
   * Start whatever conversations are due. `trainerReady` false (pacing.ts: the trainer has a batch waiting) holds new
   * conversations back; the rate's credit still accrues, capped at `concurrency` as ever.
   */
  tick(trainerReady = true): void {
    const now = this.now();
    const { perMinute, concurrency } = this.settings;
    this.credit = Math.min(concurrency, this.credit + ((now - this.lastRefill) / 60_000) * perMinute);
    this.lastRefill = now;
    if (this.controller.signal.aborted || now < this.backoffUntil || !trainerReady) return;
    while (this.credit >= 1 && this.active.size < concurrency) {
      this.credit -= 1;
      this.launch(this.next++);
    }
  }

  private launch(k: number): void {
    this.counts.sessions++;
    const countingChat: ChatFactory = (conv) => {
      const chat = this.chatFor(conv);
      return async (req) => {
        const reply = await chat(req);
        this.counts.turns++;
        this.turnTimes.push(this.now());
        return reply;
      };
    };
    const run = simulateConversation(this.settings, k, this.nonce, countingChat, this.controller.signal)
      .then((r) => {
        this.failures = 0;
        this.counts.approvals += r.satisfied;
        this.counts.corrections += r.corrections;
        this.counts.toolCalls += r.toolCalls;
      })
      .catch((err: unknown) => {
        if (this.controller.signal.aborted) return;
        this.counts.errors++;
        this.failures++;
        this.lastError = err instanceof Error ? err.message : String(err);
        const wait = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(this.failures - 1, 5));
        this.backoffUntil = this.now() + wait;
        this.log(`conversation ${k} failed (${this.lastError}); new conversations wait ${wait} ms`);
      })
      .finally(() => this.active.delete(k));
    this.active.set(k, run);
  }

  stats(): SimulationStats {
    const now = this.now();
    while (this.turnTimes.length && now - this.turnTimes[0] > RATE_WINDOW_MS) this.turnTimes.shift();
    return {
      experimentId: this.experimentId,
      at: now,
      active: this.active.size,
      ...this.counts,
      turnsPerS: this.turnTimes.length / (RATE_WINDOW_MS / 1000),
      lastError: this.lastError,
    };
  }

  /** Stop starting conversations, abort the running ones and wait for them to unwind. */
  async stop(): Promise<void> {
    this.controller.abort();
    await Promise.allSettled([...this.active.values()]);
  }
}
