// A grader scores one reply to one eval item on 0…1. Its name and version are stored with every score, so
// scores of different graders (or of one grader before and after a change) are never averaged together.
export interface GradeItem {
  key: string;
  messages: readonly Record<string, unknown>[];
  reference: string | null;
  rubric: string | null;
  persona: string | null;
}

export interface GradeResult {
  /** 0 (fails) … 1 (meets the bar) */
  score: number;
  detail?: Record<string, unknown>;
}

export interface Grader {
  readonly name: "persona" | "judge" | "custom";
  readonly version: string;
  /** Why this grader cannot grade `item` (checked before any generation), or null. */
  cannotGrade(item: GradeItem): string | null;
  grade(item: GradeItem, reply: string, signal?: AbortSignal): Promise<GradeResult>;
}

/** The grader could not produce a score (every judge vote failed, a module threw): the reply is not counted. */
export class GradeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GradeError";
  }
}
