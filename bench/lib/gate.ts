// Gated promotion in lockstep (bench/lib/lockstep.ts `gate`): the gate's eval set is a persona's training questions —
// the ones its simulated users ask, never the held-out ones bench/learning grades — so a version is promoted on
// questions the proof does not use. After each step its version is evaluated (server/evaluation/runner.ts, the
// experiment's evaluation settings) and the product's gate applied (server/evaluation/gate.ts); the trainer continues
// from the version served.
import type { ExperimentConfig } from "../../server/config/experimentConfig";
import { applyGate } from "../../server/evaluation/gate";
import { evaluateVersion } from "../../server/evaluation/runner";
import { createPersonaEvalSet } from "../../server/evaluation/service";
import { DEMO_GATE_SET } from "../../server/simulation/demo";

/** The gate's eval set: the demo's (the same questions). */
export const GATE_SET = DEMO_GATE_SET;

/**
 * `config` gated on GATE_SET with `k` replies per question (before the experiment is created with it); `confirm`:
 * each winner and the served version compared again on a fresh draw of seeds before a promotion (serving.gate.confirm).
 */
export function gatedConfig(config: ExperimentConfig, k: number, confirm = false): ExperimentConfig {
  return {
    ...config,
    serving: { ...config.serving, promotion: "gated", gate: { ...config.serving.gate, set: GATE_SET, confirm } },
    evaluation: { ...config.evaluation, enabled: true, k },
  };
}

/** `config` with every step's version served at once: lockstep without a gate, the trainer's own trajectory. */
export function ungatedConfig(config: ExperimentConfig): ExperimentConfig {
  return { ...config, serving: { ...config.serving, promotion: "always" } };
}

/**
 * Writes the gate's set for `experimentId` (created with a gatedConfig), evaluates the served base, and returns the
 * lockstep's gate: each step's version evaluated and gated. `held(version)` says why a version was held back (null:
 * promoted, or not gated yet).
 */
export async function trainingQuestionGate(experimentId: string, config: ExperimentConfig, personaId: string) {
  const { setVersionId } = await createPersonaEvalSet(null, {
    experimentId,
    name: GATE_SET,
    personas: [personaId],
    questions: "asked",
  });
  await evaluateVersion(experimentId, 0, setVersionId);
  const reasons = new Map<number, string>();
  return {
    held: (version: number) => reasons.get(version) ?? null,
    gate: async ({ version }: { version: number }) => {
      await evaluateVersion(experimentId, version, setVersionId);
      let outcome = await applyGate(experimentId, config, setVersionId);
      // serving.gate.confirm: what the gate waits for (the current draw's scores, a winner's fresh pair), as the
      // scheduler would queue it; each evaluation is made once, so this ends with a decision
      const made = new Set<string>();
      while (outcome.due.length) {
        for (const { version: v, draw } of outcome.due) {
          if (made.has(`${v}:${draw}`)) throw new Error(`v${v}'s evaluation on draw ${draw} did not finish`);
          made.add(`${v}:${draw}`);
          await evaluateVersion(experimentId, v, setVersionId, {}, draw);
        }
        outcome = await applyGate(experimentId, config, setVersionId);
      }
      for (const h of outcome.held) reasons.set(h.version, h.reason);
    },
  };
}
