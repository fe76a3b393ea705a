// The tools a tool-call task's agent may call, in the OpenAI tool format, and how each answers. They run in
// this process, not in a sandbox: `calc` parses arithmetic itself (no eval) and `lookup` reads the task's
// own fact table, so neither can touch the machine.
import type { ToolCallTask } from "../tasks/spec";

export const TOOL_DEFINITIONS = {
  bash: {
    type: "function",
    function: {
      name: "bash",
      description: "Run a shell command in the task's workspace (/app). Returns its exit code and output.",
      parameters: {
        type: "object",
        properties: { command: { type: "string", description: "The command, run with bash -c" } },
        required: ["command"],
      },
    },
  },
  calc: {
    type: "function",
    function: {
      name: "calc",
      description: "Evaluate an arithmetic expression (+ - * / % ^ and parentheses). Returns the number.",
      parameters: {
        type: "object",
        properties: { expression: { type: "string", description: "e.g. (17 + 4) * 3" } },
        required: ["expression"],
      },
    },
  },
  lookup: {
    type: "function",
    function: {
      name: "lookup",
      description: "Look up a fact by its key. Returns the value, or says the key is unknown.",
      parameters: {
        type: "object",
        properties: { key: { type: "string", description: "The fact's key" } },
        required: ["key"],
      },
    },
  },
} as const;

export type ToolName = keyof typeof TOOL_DEFINITIONS;

const MAX_EXPRESSION = 500;

/**
 * Recursive descent over + - * / % ^ (right-associative), unary signs and parentheses. Throws with the
 * position of the first thing it cannot read.
 */
export function evaluateArithmetic(expression: string): number {
  if (expression.length > MAX_EXPRESSION) throw new Error(`expression longer than ${MAX_EXPRESSION} characters`);
  const src = expression.replace(/\s+/g, "");
  let pos = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at position ${pos + 1}`);
  };
  const peek = () => src[pos];
  function primary(): number {
    if (peek() === "(") {
      pos++;
      const v = sum();
      if (peek() !== ")") fail("expected )");
      pos++;
      return v;
    }
    if (peek() === "-" || peek() === "+") {
      const sign = src[pos++] === "-" ? -1 : 1;
      return sign * power();
    }
    const m = /^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?/.exec(src.slice(pos));
    if (!m) return fail(peek() === undefined ? "unexpected end" : `unexpected "${peek()}"`);
    pos += m[0].length;
    return Number(m[0]);
  }
  function power(): number {
    const base = primary();
    if (peek() !== "^") return base;
    pos++;
    return base ** power();
  }
  function product(): number {
    let v = power();
    while (peek() === "*" || peek() === "/" || peek() === "%") {
      const op = src[pos++];
      const r = power();
      v = op === "*" ? v * r : op === "/" ? v / r : v % r;
    }
    return v;
  }
  function sum(): number {
    let v = product();
    while (peek() === "+" || peek() === "-") {
      const op = src[pos++];
      const r = product();
      v = op === "+" ? v + r : v - r;
    }
    return v;
  }
  const v = sum();
  if (pos < src.length) fail(`unexpected "${peek()}"`);
  if (!Number.isFinite(v)) throw new Error("the result is not a finite number");
  return v;
}

/** Rounds away float noise (0.1 + 0.2) so an exact answer reads exactly. */
function formatNumber(v: number): string {
  return String(Number(v.toPrecision(12)));
}

/** What a tool-call task's tool answers; an error is an observation too (the agent can recover). */
export function runTaskTool(task: Pick<ToolCallTask, "tools" | "lookup">, name: string, rawArgs: string): string {
  if (!(task.tools as string[]).includes(name))
    return `error: unknown tool ${name}; this task offers ${task.tools.join(", ") || "no tools"}`;
  let args: Record<string, unknown>;
  try {
    args = JSON.parse(rawArgs) as Record<string, unknown>;
  } catch {
    return "error: arguments must be a JSON object";
  }
  if (name === "calc") {
    if (typeof args?.expression !== "string") return 'error: arguments must be {"expression": "..."}';
    try {
      return formatNumber(evaluateArithmetic(args.expression));
    } catch (e) {
      return `error: ${(e as Error).message}`;
    }
  }
  if (typeof args?.key !== "string") return 'error: arguments must be {"key": "..."}';
  const want = args.key.trim().toLowerCase();
  const hit = Object.entries(task.lookup).find(([k]) => k.trim().toLowerCase() === want);
  return hit ? hit[1] : `unknown key: ${args.key}`;
}
