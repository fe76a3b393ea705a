// The benchmark's proxy, in its own process (as workers/serve runs it), recording into the benchmark's
// throwaway database. Prints its URL as one JSON line; on SIGTERM drains the writer and exits.
import { startProxy } from "../../server/proxy/server";

const proxy = await startProxy({ port: 0, host: "127.0.0.1", log: () => {} });
console.log(JSON.stringify({ url: proxy.url }));
process.on("SIGTERM", () => void proxy.close().then(() => process.exit(0)));
