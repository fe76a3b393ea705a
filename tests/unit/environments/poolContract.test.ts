// The pool protocol extractor (integrations/contracts/extract_pool_protocols.py) reads what the servers' code
// says, not a hand-written list: run on small servers written the way the fork's are (FastAPI and Flask
// handlers, `**result` spreads, a forwarded answer), in a throwaway git repository, it reports their routes,
// required fields, answer shapes and capacity codes, and a change to a server changes the contract.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = path.resolve("integrations/contracts/extract_pool_protocols.py");

const TERMINAL = `
class CapacityError(Exception):
    pass

class WorkerPool:
    async def allocate(self, task_key, request_id=None):
        if full:
            raise CapacityError("RUN_SLOTS_EXHAUSTED", f"Task {task_key} at run capacity")
        run_lease_id = f"run-{uuid.uuid4().hex[:16]}"
        return {"lease_id": run_lease_id, "reused": False}

    def _get_run_slot(self, run_lease_id):
        raise KeyError(f"Unknown run_lease_id: {run_lease_id}")

@app.post("/allocate")
async def allocate(request: Request) -> JSONResponse:
    data = await json_payload(request)
    task_key = data.get("task_key", "")
    request_id = data.get("request_id")
    if not task_key:
        return JSONResponse({"ok": False, "error": "task_key is required"}, status_code=400)
    try:
        result = await POOL.allocate(task_key=str(task_key), request_id=request_id)
        return JSONResponse({"ok": True, **result})
    except CapacityError as exc:
        return JSONResponse({"ok": False, "error": exc.message, "code": exc.code}, status_code=429)

@app.post("/exec_tool")
async def exec_tool(request: Request) -> JSONResponse:
    data = await json_payload(request)
    lease_id = data.get("lease_id")
    tool_call = data.get("tool_call")
    if not lease_id:
        return JSONResponse({"ok": False, "error": "lease_id is required"}, status_code=400)
    arguments = tool_call.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        return JSONResponse({"ok": False, "error": "must be a dict"}, status_code=400)
    return JSONResponse({"ok": True, "observation": "x"})

@app.get("/healthz")
async def healthz():
    return {"ok": True}
`;

const SWE_POOL = `
class SweEnvPool:
    def exec(self, lease_id, command):
        return _post_exec(f"{lease.node_url}/container/exec", {"command": command})

    def _pick_and_reserve_node(self):
        raise RuntimeError(f"All exec nodes are full or unhealthy. nodes={nodes}")

@app.post("/exec")
def exec_cmd():
    data = flask_request.get_json(force=True) or {}
    lease_id = data.get("lease_id")
    command = data.get("command")
    if not lease_id or not command:
        return jsonify({"ok": False, "error": "lease_id and command required"}), 400
    result = POOL.exec(lease_id=lease_id, command=command, timeout=int(data.get("timeout", 180)))
    return jsonify(result)
`;

const SWE_EXEC = `
@app.post("/container/exec")
def container_exec():
    data = request.get_json(force=True) or {}
    return jsonify({"ok": True, "returncode": 0, "output": ""})
`;

const GUI = `
class EnvPool:
    def allocate(self, episode_id=None):
        raise RuntimeError(f"Pool exhausted: {n}/{m}")

@app.post("/allocate")
def allocate():
    data = request.get_json(force=True, silent=True) or {}
    return jsonify({"ok": True, "lease_id": "lease-1"})
`;

let repo = "";
afterEach(() => rmSync(repo, { recursive: true, force: true }));

interface Route {
  method: string;
  request: Record<string, { required: boolean; default?: unknown }>;
  responses: { status: number; ok?: unknown; keys?: string[]; forwarded_to?: string }[];
}
interface Contract {
  routes: Record<string, Route>;
  capacity_codes: string[];
  capacity_messages: string[];
  unknown_lease_messages: string[];
  lease_id_prefixes: string[];
}

function extract(terminal: string): Record<"terminal" | "swe" | "gui", Contract> {
  repo = mkdtempSync(path.join(tmpdir(), "ocrl-pools-"));
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", repo, "-c", "user.email=t@t", "-c", "user.name=t", ...args], { encoding: "utf8" });
  git("init", "-q");
  const files: Record<string, string> = {
    "terminal-rl/remote/pool_server.py": terminal,
    "terminal-rl/env_client.py": "",
    "swe-rl/server/swe_env_pool_server.py": SWE_POOL,
    "swe-rl/server/swe_exec_server.py": SWE_EXEC,
    "swe-rl/swe_env_client.py": "",
    "gui-rl/env_pool_server.py": GUI,
    "gui-rl/env_client.py": "",
  };
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(repo, p)), { recursive: true });
    writeFileSync(path.join(repo, p), text);
  }
  git("add", "-A");
  git("commit", "-qm", "servers");
  const commit = git("rev-parse", "HEAD").trim();
  const out = path.join(repo, "out");
  execFileSync("python3", [SCRIPT, "--git-dir", path.join(repo, ".git"), "--commit", commit, "--out-dir", out]);
  const read = (n: string) => JSON.parse(readFileSync(path.join(out, `${n}.json`), "utf8")) as Contract;
  return { terminal: read("terminal"), swe: read("swe"), gui: read("gui") };
}

describe("extract_pool_protocols.py", () => {
  it("reads routes, required fields, answer shapes, capacity codes and lease texts from the servers' code", () => {
    const f = extract(TERMINAL);
    const t = f.terminal;
    expect(t.routes["/allocate"].request).toEqual({
      request_id: { required: false },
      task_key: { required: true, default: "" },
    });
    expect(t.routes["/allocate"].responses).toEqual([
      { status: 200, ok: true, keys: ["lease_id", "ok", "reused"] },
      { status: 400, ok: false, keys: ["error", "ok"] },
      { status: 429, ok: false, keys: ["code", "error", "ok"] },
    ]);
    // A type check on an optional field is not a requirement.
    expect(t.routes["/exec_tool"].request["tool_call.arguments"]).toEqual({ required: false });
    expect(t.routes["/exec_tool"].request.lease_id).toEqual({ required: true });
    expect(t.routes["/healthz"]).toMatchObject({ method: "GET", responses: [{ status: 200, ok: true, keys: ["ok"] }] });
    expect(t.capacity_codes).toEqual(["RUN_SLOTS_EXHAUSTED"]);
    expect(t.unknown_lease_messages).toEqual(["Unknown run_lease_id:"]);
    expect(t.lease_id_prefixes).toEqual(["run-"]);
    // swe's pool forwards the exec server's answer: its keys come from the exec server's route.
    expect(f.swe.routes["/exec"].responses[0]).toEqual({
      status: 200,
      forwarded_to: "/container/exec",
      keys: ["ok", "output", "returncode"],
    });
    expect(f.swe.routes["/exec"].request.timeout).toEqual({ required: false, default: 180 });
    expect(f.swe.capacity_messages).toEqual(["All exec nodes are full or unhealthy. nodes="]);
    expect(f.gui.capacity_messages).toEqual(["Pool exhausted:"]);
  });

  it("follows a change to a server: a field that stops being checked stops being required", () => {
    const f = extract(TERMINAL.replace("    if not task_key:\n", "    if False:\n"));
    expect(f.terminal.routes["/allocate"].request.task_key).toEqual({ required: false, default: "" });
    expect(f.terminal.routes["/allocate"].responses.map((r) => r.status)).toEqual([200, 400, 429]);
  });
});
