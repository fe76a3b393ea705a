// Task formats: the committed Harbor examples import from their folder and from a tar.gz made by the system's
// tar; bad tasks and hostile archives are refused with an error naming the file and field; tool-call JSONL
// likewise. The oracle run (on real bubblewrap) verifies each example with its own solution and flags
// impossible, trivial and broken tasks.
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AppError } from "../../../server/platform/errors";
import { LocalBwrapProvider } from "../../../server/environments/sandbox/bwrap";
import { sandboxLimitsSchema } from "../../../server/environments/sandbox/limits";
import { parseTasks } from "../../../server/environments/tasks/import";
import { oracleStatus, oracleToolCall, runOracle } from "../../../server/environments/tasks/oracle";
import type { TerminalTask } from "../../../server/environments/tasks/spec";

const EXAMPLES = path.resolve("examples/environments/terminal");
const TOOLCALL = path.resolve("examples/environments/toolcall/arithmetic.jsonl");
const work = mkdtempSync(path.join(tmpdir(), "ocrl-tasks-test-"));
// Sandbox uids pass through it to their lease folders.
chmodSync(work, 0o711);
afterAll(() => rmSync(work, { recursive: true, force: true }));

function tgz(dir: string, ...members: string[]): Buffer {
  const out = path.join(work, `a-${Math.random().toString(36).slice(2)}.tgz`);
  const r = spawnSync("tar", ["-C", dir, "-czPf", out, ...(members.length ? members : ["."])]);
  if (r.status !== 0) throw new Error(String(r.stderr));
  return readFileSync(out);
}

/** A copy of one example, changed by `edit`, as its own folder. */
function variant(name: string, edit: (dir: string) => void): string {
  const dir = path.join(work, `${name}-${Math.random().toString(36).slice(2)}`);
  cpSync(path.join(EXAMPLES, name), dir, { recursive: true });
  edit(dir);
  return dir;
}

function rejection(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error("expected a rejection");
}

describe("Harbor task import", () => {
  it("reads the committed examples from their folder and from a tar.gz identically", () => {
    const fromFolder = parseTasks({ format: "harbor", folder: EXAMPLES });
    expect(fromFolder.map((t) => t.key)).toEqual([
      "examples/count-errors",
      "examples/make-tree",
      "examples/sort-names",
    ]);
    const count = fromFolder[0] as TerminalTask;
    expect(count.instruction).toMatch(/^The log file/);
    expect(count.workspace.map((f) => f.path)).toEqual(["data/service.log"]);
    expect(count.tests).toEqual([expect.objectContaining({ path: "test.sh", executable: true })]);
    expect(count.solution?.map((f) => f.path)).toEqual(["solve.sh"]);
    expect(count.verifier).toEqual({ command: "bash /tests/test.sh", timeoutSeconds: 30, env: {} });
    expect(count.agentTimeoutSeconds).toBe(60);
    expect(count.warnings).toEqual([]);
    expect(count.metadata).toMatchObject({ difficulty: "easy", description: "Count the error lines of a log" });
    expect(parseTasks({ format: "harbor", archive: tgz(EXAMPLES), name: "examples.tgz" })).toEqual(fromFolder);
  });

  it("names the file and field of a bad task", () => {
    const badTimeout = variant("count-errors", (d) =>
      writeFileSync(path.join(d, "task.toml"), '[verifier]\ntimeout_sec = "soon"\n'),
    );
    const e1 = rejection(() => parseTasks({ format: "harbor", folder: badTimeout }));
    expect(e1.code).toBe("BAD_REQUEST");
    expect(e1.message).toMatch(/^task\.toml: verifier\.timeout_sec: /);
    expect(e1.issues[0].path).toBe("task.toml#verifier.timeout_sec");

    const noTest = variant("count-errors", (d) => rmSync(path.join(d, "tests", "test.sh")));
    expect(rejection(() => parseTasks({ format: "harbor", folder: noTest })).message).toBe(
      "tests/test.sh: is missing: the verifier's entry point",
    );

    const badToml = variant("count-errors", (d) => writeFileSync(path.join(d, "task.toml"), "[verifier\n"));
    expect(rejection(() => parseTasks({ format: "harbor", folder: badToml })).message).toMatch(/^task\.toml: line 1: /);

    // In a set, the task's folder is part of the name.
    const set = path.join(work, "set");
    mkdirSync(set);
    cpSync(path.join(EXAMPLES, "make-tree"), path.join(set, "make-tree"), { recursive: true });
    writeFileSync(path.join(set, "make-tree", "instruction.md"), "  \n");
    expect(rejection(() => parseTasks({ format: "harbor", archive: tgz(set) })).message).toBe(
      "make-tree/instruction.md: is empty",
    );
    const noSolve = variant("sort-names", (d) => rmSync(path.join(d, "solution", "solve.sh")));
    writeFileSync(path.join(noSolve, "solution", "notes.txt"), "x");
    expect(rejection(() => parseTasks({ format: "harbor", folder: noSolve })).message).toMatch(
      /^solution\/solve\.sh: is missing/,
    );
    const badEnv = variant("sort-names", (d) =>
      writeFileSync(path.join(d, "task.toml"), '[verifier]\nenv = { "BAD-NAME" = "x" }\n'),
    );
    expect(rejection(() => parseTasks({ format: "harbor", folder: badEnv })).message).toMatch(
      /^task\.toml: verifier\.env\.BAD-NAME: /,
    );
  });

  it("refuses links, paths leaving the archive and non-archives, by entry name", () => {
    const withLink = variant("count-errors", (d) => symlinkSync("/etc/passwd", path.join(d, "environment", "pw")));
    expect(rejection(() => parseTasks({ format: "harbor", archive: tgz(withLink), name: "t.tgz" })).message).toBe(
      't.tgz: entry "./environment/pw" is a symbolic link: only files and folders are accepted',
    );
    expect(rejection(() => parseTasks({ format: "harbor", folder: withLink })).message).toMatch(
      /^environment\/pw: is a link or special file/,
    );
    const inner = path.join(work, "inner");
    mkdirSync(inner);
    writeFileSync(path.join(work, "outside.txt"), "x");
    expect(
      rejection(() => parseTasks({ format: "harbor", archive: tgz(inner, "../outside.txt"), name: "t.tgz" })).message,
    ).toBe(`t.tgz: entry "../outside.txt" leaves its folder ('..')`);
    expect(
      rejection(() => parseTasks({ format: "harbor", archive: Buffer.from("not a tar at all".repeat(64)) })).message,
    ).toMatch(/^archive: is not a tar archive/);
    const gzGarbage = Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from("garbage")]);
    expect(rejection(() => parseTasks({ format: "harbor", archive: gzGarbage })).message).toMatch(/not a valid gzip/);
  });

  it("keeps what local-bwrap cannot honour as warnings", () => {
    const docker = variant("count-errors", (d) => {
      writeFileSync(path.join(d, "environment", "Dockerfile"), "FROM debian\nRUN apt-get install -y jq\n");
      writeFileSync(path.join(d, "task.toml"), '[environment]\ndocker_image = "x/y:1"\n');
    });
    const [t] = parseTasks({ format: "harbor", folder: docker }) as TerminalTask[];
    expect(t.workspace.map((f) => f.path)).toEqual(["data/service.log"]);
    expect(t.warnings).toEqual([
      expect.stringMatching(/Dockerfile has RUN steps/),
      expect.stringMatching(/docker_image x\/y:1/),
      expect.stringMatching(/allow_internet is true/),
    ]);
  });
});

describe("tool-call JSONL import", () => {
  it("reads the committed arithmetic set", () => {
    const tasks = parseTasks({ format: "jsonl", text: readFileSync(TOOLCALL, "utf8") });
    expect(tasks.map((t) => t.key)).toEqual(["mul-17-23", "sum-3", "capital-fr", "price-total"]);
    expect(tasks[2]).toMatchObject({ kind: "toolcall", answer: "Paris", tools: ["lookup"], verifier: "boxed" });
    for (const t of tasks) expect(oracleToolCall(t as never).status).toBe("verified");
  });

  it("names the line and field of a bad task", () => {
    const bad = (text: string) => rejection(() => parseTasks({ format: "jsonl", text, name: "set.jsonl" })).message;
    expect(bad('{"id":"a","prompt":"p","answer":"1"}\n{"id":"b","prompt":"p"}')).toMatch(
      /^set\.jsonl line 2: answer: /,
    );
    expect(bad('{"id":"a","prompt":"p","answer":"1","tools":["shell"]}')).toMatch(/^set\.jsonl line 1: tools\.0: /);
    expect(bad('{"id":"a","prompt":"p","answer":"1","extra":1}')).toMatch(/^set\.jsonl line 1: /);
    expect(bad("{not json")).toMatch(/^set\.jsonl line 1: is not JSON/);
    expect(bad('{"id":"a","prompt":"p","answer":"1"}\n{"id":"a","prompt":"q","answer":"2"}')).toBe(
      "set.jsonl line 2: id: a is used by an earlier line",
    );
    expect(bad('{"id":"a","prompt":"p","answer":"1","tools":["lookup"]}')).toMatch(/lookup: is empty/);
    expect(bad("\n\n")).toBe("set.jsonl: holds no task");
  });
});

describe("oracle status", () => {
  it("flags flaky, impossible, trivial, broken and unverifiable tasks", () => {
    expect(oracleStatus(true, [1, 1], 0)).toBe("verified");
    expect(oracleStatus(true, [1, 0], 0)).toBe("flaky");
    expect(oracleStatus(true, [0, 0.5], 0)).toBe("impossible");
    expect(oracleStatus(true, [1, 1], 1)).toBe("trivial");
    expect(oracleStatus(true, [null, null], null)).toBe("broken");
    expect(oracleStatus(false, [], 0)).toBe("no_solution");
    expect(oracleStatus(false, [], 1)).toBe("trivial");
  });
});

const provider = new LocalBwrapProvider({
  root: path.join(work, "sandboxes"),
  bwrap: "bwrap",
  uidBase: 220_000 + (process.pid % 1000) * 8,
  uidCount: 8,
});
const availability = await provider.available();
const limits = sandboxLimitsSchema.parse({ wallSeconds: 30 });

describe.skipIf(!availability.ok)(`oracle run${availability.ok ? "" : ` (skipped: ${availability.reason})`}`, () => {
  it("verifies each committed example with its own solution, and the untouched workspace fails it", async () => {
    const tasks = parseTasks({ format: "harbor", folder: EXAMPLES });
    for (const task of tasks) {
      const o = await runOracle(provider, task, limits, 1);
      expect({ key: o.key, status: o.status, rewards: o.solutionRewards, nullReward: o.nullReward }).toEqual({
        key: task.key,
        status: "verified",
        rewards: [1],
        nullReward: 0,
      });
      expect(o.commands.map((c) => c.phase)).toEqual(["oracle", "verifier", "verifier"]);
    }
    expect(provider.list()).toEqual([]);
  });

  it("flags a wrong solution as impossible, an accept-all verifier as trivial, a silent one as broken", async () => {
    const load = (dir: string) => parseTasks({ format: "harbor", folder: dir })[0];
    const wrong = variant("count-errors", (d) =>
      writeFileSync(path.join(d, "solution", "solve.sh"), "grep -c ERROR /app/data/service.log > /app/answer.txt\n"),
    );
    expect((await runOracle(provider, load(wrong), limits, 1)).status).toBe("impossible");
    const acceptAll = variant("sort-names", (d) =>
      writeFileSync(path.join(d, "tests", "test.sh"), "echo 1 > /logs/verifier/reward.txt\n"),
    );
    expect((await runOracle(provider, load(acceptAll), limits, 1)).status).toBe("trivial");
    const silent = variant("make-tree", (d) => {
      writeFileSync(path.join(d, "tests", "test.sh"), "echo checked\n");
      chmodSync(path.join(d, "tests", "test.sh"), 0o755);
    });
    const o = await runOracle(provider, load(silent), limits, 1);
    expect(o.status).toBe("broken");
    expect(o.errors[0]).toMatch(/wrote no \/logs\/verifier\/reward/);
  });
});
