// Named GPU splits: the OpenClaw-RL reference scripts' layouts (3-way, and upstream's 4-way combine split with the
// in-job teacher) and a two-node one, referred to by id in tests and docs.
import { GpuSplitSchema, type GpuSplit } from "./schema";

export interface GpuSplitPreset {
  id: string;
  label: string;
  description: string;
  split: GpuSplit;
}

export const GPU_SPLIT_PRESETS: readonly GpuSplitPreset[] = [
  {
    id: "openclaw-8gpu-full",
    label: "OpenClaw-RL default — 8 GPUs, full fine-tune",
    description: "The reference scripts' split: actor 4, rollout 2 (TP 2), PRM 2 (TP 2) on one 8-GPU node.",
    split: GpuSplitSchema.parse({}),
  },
  {
    id: "openclaw-4gpu-lora",
    label: "OpenClaw-RL LoRA — 4 GPUs",
    description: "The LoRA scripts' split 2/1/1 on one 4-GPU node, TP 1 for both engine kinds.",
    split: GpuSplitSchema.parse({
      gpusPerNode: 4,
      actorGpus: 2,
      rolloutGpus: 1,
      prmGpus: 1,
      rolloutGpusPerEngine: 1,
      prmGpusPerEngine: 1,
    }),
  },
  {
    id: "openclaw-8gpu-combine-4way",
    label: "OpenClaw-RL combine, in-job teacher — 8 GPUs",
    description:
      'Upstream\'s combine default since PR #85 ("1+1"), and its top-K OPD layout (PRs #99/#109): actor 4, rollout 2 (TP 2), PRM 1 (TP 1), Megatron PRM teacher 1.',
    split: GpuSplitSchema.parse({ prmGpus: 1, prmGpusPerEngine: 1, prmTeacherGpus: 1 }),
  },
  {
    id: "2-nodes-x-8",
    label: "2 nodes × 8 GPUs",
    description: "Actor on all of node 0; node 1 holds 2 rollout engines (TP 2) and 2 PRM engines (TP 2).",
    split: GpuSplitSchema.parse({ nodes: 2, actorGpus: 8, rolloutGpus: 4, prmGpus: 4 }),
  },
];
