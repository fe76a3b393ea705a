// The Tinker bridge's sampling endpoint on the fake SDK (integrations/tinker/tests/serve_fake.py), as the TypeScript
// tests start it: its URL once it listens, `step` to swap in a step's sampler as the bridge's loop does, and `stop`.
import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

const root = path.resolve(import.meta.dirname, "../..");

export interface FakeTinkerEndpoint {
  /** `http://host:port/v1`, what the bridge reports as the run's rolloutUrl */
  url: string;
  /** serve step `n`'s sampler path from now on (resolves once the endpoint says so) */
  step(n: number, samplerPath: string): Promise<void>;
  stop(): void;
}

/** `env`: the endpoint's own settings (TINKER_PER_USER, TINKER_BASE_MODEL, FAKE_TINKER_SKILLS, the control plane's). */
export async function startFakeTinkerEndpoint(env: Record<string, string> = {}): Promise<FakeTinkerEndpoint> {
  const child = spawn("python3", ["integrations/tinker/tests/serve_fake.py"], {
    cwd: root,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const next = () =>
    new Promise<string>((resolve, reject) => {
      lines.once("line", resolve);
      child.once("exit", (code) => reject(new Error(`the endpoint exited (${code})`)));
    });
  const url = await next();
  return {
    url,
    async step(n, samplerPath) {
      child.stdin!.write(`step ${n} ${samplerPath}\n`);
      const said = await next();
      if (said !== `serving step ${n}`) throw new Error(`the endpoint said '${said}'`);
    },
    stop() {
      child.stdin?.end();
      child.kill();
    },
  };
}
