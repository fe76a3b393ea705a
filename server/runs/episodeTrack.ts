// Which track's job a run of an experiment launches. An experiment with environments trains on its episodes:
// terminal-rl's job when its agents work in a shell (a `bash` tool, a remote pool, a stock agent's harness),
// ReTool's (tool-call) otherwise; n samples per prompt = the size of its latest episode group (the n it
// launches), groups per rollout = the experiment's batch size. Without environments: null (the conversation job).
import { z } from "zod";
import type { ExperimentConfig } from "../config/experimentConfig";
import { db } from "../platform/db/client";
import type { LaunchTarget } from "./launch";

const ToolsSchema = z.array(z.string()).catch([]);
/** The fork's scripts' default group size, until the experiment has launched a group. */
const DEFAULT_GROUP = 8;

export async function episodeTrackFor(
  experimentId: string,
  config: ExperimentConfig,
): Promise<LaunchTarget["episodes"]> {
  const environments = await db().environment.findMany({
    where: { experimentId },
    select: { provider: true, harness: true, tools: true },
  });
  if (environments.length === 0) return undefined;
  const shell = environments.some(
    (e) => e.provider === "remote-pool" || e.harness !== null || ToolsSchema.parse(e.tools).includes("bash"),
  );
  const latest = await db().episode.findFirst({
    where: { experimentId, groupKey: { not: null } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { groupKey: true },
  });
  const n = latest ? await db().episode.count({ where: { groupKey: latest.groupKey } }) : DEFAULT_GROUP;
  return {
    track: shell ? "terminal" : "retool",
    nSamplesPerPrompt: Math.min(n, 64),
    groupsPerRollout: config.hyper.batchSize,
  };
}
