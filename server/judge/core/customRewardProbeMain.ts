// Child-process entry of the custom reward probe (customRewardProbe.ts): imports the module named in argv,
// answers the probe turn and writes the outcome as one JSON line on fd 3 (the module may print to stdout).
import { writeSync } from "node:fs";
import { validateCustomReward } from "./customReward";

const result = await validateCustomReward(process.argv[2] ?? "", {
  timeoutMs: Number(process.env.PROBE_TIMEOUT_MS) || undefined,
});
writeSync(3, `${JSON.stringify(result)}\n`);
process.exit(0);
