// The benchmark's proxy, in its own process (as workers/serve runs it), recording into the benchmark's
// throwaway database. Prints its URL as one JSON line. A "drain" line on stdin answers, once everything it
// recorded so far is in Postgres, with one JSON line: {"drained":true|false,"depth":n,"stats":{…}}.
// On SIGTERM drains the writer and exits.
import { createInterface } from "node:readline";
import { startProxy } from "../../server/proxy/server";

const proxy = await startProxy({ port: 0, host: "127.0.0.1", log: () => {} });
console.log(JSON.stringify({ url: proxy.url }));
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() !== "drain") return;
  void proxy.writer
    .drain(60_000)
    .then(
      () => true,
      () => false,
    )
    .then((drained) => console.log(JSON.stringify({ drained, depth: proxy.writer.depth, stats: proxy.writer.stats })));
});
process.on("SIGTERM", () => void proxy.close().then(() => process.exit(0)));
