// An episode's job id in the `episode` queue, per attempt: deterministic, so enqueueing a job that still exists
// is a no-op (the sweeper re-enqueues orphans freely).
export const jobIdOf = (episodeId: string, attempts: number) => `${episodeId}_a${attempts}`;
