// Keeps the first `limit` bytes of a stream and counts the rest, so a command that prints gigabytes costs
// the host a counter, not memory (upstream cuts observations too: ReTool at 1,024 chars).
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.limit - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  /** The kept bytes as text; a multi-byte character cut at the limit becomes U+FFFD. */
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
