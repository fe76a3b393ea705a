// The benchmark's upstream, in its own process: the fake OpenAI-compatible server with a fixed reply
// ("fixed") or the scripted OpenClaw answers ("openclaw"). Prints its base URL as one JSON line.
import { startFakeUpstream } from "../lib/fakeOpenaiUpstream";
import { scriptedAnswer } from "../lib/openclawShapes";

const mode = process.argv[2] ?? "fixed";
const fake = await startFakeUpstream({ recordRequests: false });
fake.respond(
  mode === "openclaw" ? (b) => scriptedAnswer(b) : () => ({ content: "The quick brown fox jumps over the lazy dog." }),
);
console.log(JSON.stringify({ url: fake.url }));
process.on("SIGTERM", () => void fake.close().then(() => process.exit(0)));
