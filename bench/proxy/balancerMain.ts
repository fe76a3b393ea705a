// The benchmark's round-robin balancer (bench/lib/roundRobin.ts) in its own process, in front of the proxy
// replicas given as arguments. Prints its URL as one JSON line.
import { startRoundRobin } from "../lib/roundRobin";

const lb = await startRoundRobin(process.argv.slice(2));
console.log(JSON.stringify({ url: lb.url }));
process.on("SIGTERM", () => void lb.close().then(() => process.exit(0)));
