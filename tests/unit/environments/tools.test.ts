// The tool-call tasks' in-process tools: calc's arithmetic (precedence, associativity, errors as
// observations) and lookup's fact table.
import { describe, expect, it } from "vitest";
import { demoToolCallTasks } from "../../../server/environments/demo";
import { evaluateArithmetic, runTaskTool } from "../../../server/environments/episodes/tools";
import { scoreAnswer } from "../../../server/environments/tasks/answer";

const task = { tools: ["calc", "lookup"] as ("calc" | "lookup")[], lookup: { "capital of France": "Paris" } };

describe("calc", () => {
  it("follows precedence: ^ right-associative above * / %, above + -; unary signs; parentheses", () => {
    expect(evaluateArithmetic("2 + 3 * 4")).toBe(14);
    expect(evaluateArithmetic("(2 + 3) * 4")).toBe(20);
    expect(evaluateArithmetic("2 ^ 3 ^ 2")).toBe(512);
    expect(evaluateArithmetic("-2 ^ 2")).toBe(-4);
    expect(evaluateArithmetic("10 - 4 - 3")).toBe(3);
    expect(evaluateArithmetic("17 % 5 * 2")).toBe(4);
    expect(evaluateArithmetic("1.5e2 / -3")).toBe(-50);
  });

  it("answers numbers without float noise, and errors as text the agent can read", () => {
    expect(runTaskTool(task, "calc", JSON.stringify({ expression: "0.1 + 0.2" }))).toBe("0.3");
    expect(runTaskTool(task, "calc", JSON.stringify({ expression: "17 * 23" }))).toBe("391");
    expect(runTaskTool(task, "calc", JSON.stringify({ expression: "2 +" }))).toBe(
      "error: unexpected end at position 3",
    );
    expect(runTaskTool(task, "calc", JSON.stringify({ expression: "process.exit()" }))).toMatch(
      /^error: unexpected "p"/,
    );
    expect(runTaskTool(task, "calc", JSON.stringify({ expression: "1 / 0" }))).toBe(
      "error: the result is not a finite number",
    );
    expect(runTaskTool(task, "calc", "{not json")).toBe("error: arguments must be a JSON object");
    expect(runTaskTool(task, "calc", JSON.stringify({ expr: "1" }))).toBe(
      'error: arguments must be {"expression": "..."}',
    );
  });
});

describe("lookup", () => {
  it("reads the task's facts by key, ignoring case and outer spaces", () => {
    expect(runTaskTool(task, "lookup", JSON.stringify({ key: " Capital of france " }))).toBe("Paris");
    expect(runTaskTool(task, "lookup", JSON.stringify({ key: "capital of Spain" }))).toBe(
      "unknown key: capital of Spain",
    );
  });

  it("refuses a tool the task does not offer", () => {
    expect(runTaskTool({ ...task, tools: ["calc"] }, "lookup", JSON.stringify({ key: "x" }))).toBe(
      "error: unknown tool lookup; this task offers calc",
    );
  });
});

describe("the demo's tool-call tasks", () => {
  it("are stable across calls, and the calc tool answers each one right", () => {
    const tasks = demoToolCallTasks();
    expect(demoToolCallTasks()).toEqual(tasks);
    expect(new Set(tasks.map((t) => t.key)).size).toBe(tasks.length);
    for (const t of tasks) {
      const expression = /What is (\d+ [*+] \d+)\?/.exec(t.instruction)![1];
      const answer = runTaskTool(t, "calc", JSON.stringify({ expression }));
      expect(answer).toBe(t.answer);
      expect(scoreAnswer(t, `So it is \\boxed{${answer}}.`)).toBe(1);
    }
  });
});
