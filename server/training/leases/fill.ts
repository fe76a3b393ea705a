// The filler the lease route uses: the embedded trainer's collectSamples (turns → Sample rows with label
// precedence, dispatch, exclusion and staleness), resumed from where this process last left off.
import { collectSamples } from "../samples";

const watermarks = new Map<string, Date>();

export async function collectRunSamples(runId: string): Promise<void> {
  const r = await collectSamples(runId, { since: watermarks.get(runId) ?? null });
  watermarks.set(runId, r.watermark);
}
