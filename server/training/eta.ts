// Time to the next step, from the rate at which effective samples have been arriving recently.
export class ArrivalRate {
  private readonly obs: { t: number; total: number }[] = [];

  constructor(private readonly windowMs = 5 * 60_000) {}

  /** `total`: effective samples the run has produced so far (trained + waiting); never decreases. */
  observe(tMs: number, total: number): void {
    const last = this.obs[this.obs.length - 1];
    if (last && total < last.total) this.obs.length = 0; // a reset (e.g. samples deleted): start over
    this.obs.push({ t: tMs, total });
    while (this.obs.length > 2 && tMs - this.obs[1].t >= this.windowMs) this.obs.shift();
  }

  /** samples per second over the window, or null before two observations span any time */
  rate(): number | null {
    if (this.obs.length < 2) return null;
    const a = this.obs[0];
    const b = this.obs[this.obs.length - 1];
    return b.t > a.t ? ((b.total - a.total) * 1000) / (b.t - a.t) : null;
  }

  /** seconds until `needed` are ready: 0 when they are, null when nothing has arrived lately */
  etaSeconds(ready: number, needed: number): number | null {
    if (ready >= needed) return 0;
    const r = this.rate();
    return r && r > 0 ? (needed - ready) / r : null;
  }
}
