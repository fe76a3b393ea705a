"use client";
// The GPU job of an agentic track, for a team that trains on its own Ray cluster: ReTool (tool-call) or
// terminal-rl as the fork's scripts define them (groups of n samples per prompt; step_wise with a PRM on GPUs of
// its own). The console builds the command and the GPU split; the operator runs it.
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { CopyButton } from "../_components/CopyButton";
import { GpuGrid } from "../experiments/_components/GpuGrid";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";

export function TrackJobCard() {
  const trpc = useTRPC();
  const preview = useAction(trpc.runOps.trackJob.mutationOptions());
  const [track, setTrack] = useState<"retool" | "terminal">("retool");
  const [result, setResult] = useState<{
    command: string;
    split: Record<string, number>;
    gpuSplit: Record<string, unknown>;
  } | null>(null);

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (name: string) => String(f.get(name) ?? "").trim() || undefined;
    const prmModel = text("prm");
    const r = await preview.run({
      track,
      hfCheckpoint: text("hfCheckpoint") ?? "",
      refLoad: text("refLoad") ?? "",
      saveDir: text("saveDir") ?? "",
      promptData: text("promptData") ?? "",
      envServerUrl: track === "terminal" ? text("envServerUrl") : undefined,
      nSamplesPerPrompt: Number(f.get("n")) || 8,
      gpu: { nodes: Number(f.get("nodes")) || 1 },
      ...(prmModel ? { prm: { modelPath: prmModel } } : {}),
    });
    setResult(r.ok ? r.data : null);
  }

  return (
    <form className="card" data-testid="track-job" onSubmit={onSubmit}>
      <h2 style={{ marginTop: 0 }}>GPU job for a track (slime, OpenClaw-RL fork)</h2>
      <p className="muted">
        The command the fork&apos;s scripts run for ReTool or terminal-rl, checked against its argument parser, with the
        GPUs per role. Run it on your Ray cluster from a checkout of the fork.
      </p>
      <ErrorBanner error={preview.error} />
      <div className="grid2">
        <label className="field">
          <span>Track</span>
          <select aria-label="Track" value={track} onChange={(e) => setTrack(e.target.value as "retool" | "terminal")}>
            <option value="retool">ReTool (tool-call)</option>
            <option value="terminal">terminal-rl</option>
          </select>
        </label>
        <label className="field">
          <span>Hugging Face checkpoint</span>
          <input name="hfCheckpoint" aria-label="Hugging Face checkpoint" placeholder="/models/Qwen3-4B" required />
        </label>
        <label className="field">
          <span>Megatron checkpoint (ref load)</span>
          <input name="refLoad" aria-label="Megatron checkpoint" placeholder="/models/Qwen3-4B_torch_dist" required />
        </label>
        <label className="field">
          <span>Save dir</span>
          <input name="saveDir" aria-label="Save dir" placeholder="/ckpt/retool" required />
        </label>
        <label className="field">
          <span>Prompt data</span>
          <input name="promptData" aria-label="Prompt data" placeholder="/data/dapo-math-17k.jsonl" required />
        </label>
        {track === "terminal" && (
          <label className="field">
            <span>Env pool URL</span>
            <input name="envServerUrl" aria-label="Env pool URL" placeholder="http://pool-router:18080" />
          </label>
        )}
        <label className="field">
          <span>Step PRM model (optional: step_wise)</span>
          <input name="prm" aria-label="PRM model" placeholder="/models/Qwen3-4B" />
        </label>
        <label className="field">
          <span>Samples per prompt</span>
          <input name="n" aria-label="Samples per prompt" type="number" min={1} max={64} defaultValue={8} />
        </label>
        <label className="field">
          <span>Nodes (8 GPUs each)</span>
          <input name="nodes" aria-label="Nodes" type="number" min={1} max={64} defaultValue={1} />
        </label>
      </div>
      <button className="primary" type="submit" disabled={preview.pending}>
        Build the command
      </button>
      {result && (
        <div data-testid="track-job-result" style={{ marginTop: 12 }}>
          <div>
            GPUs: actor {result.split.actor} · rollout {result.split.rollout} · PRM {result.split.prm} of{" "}
            {result.split.total}
          </div>
          <GpuGrid split={result.gpuSplit} />
          <pre className="mono">{result.command}</pre>
          <CopyButton text={result.command} label="Copy command" />
        </div>
      )}
    </form>
  );
}
