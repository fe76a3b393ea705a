#!/usr/bin/env node
// A stand-in for the docker/podman CLI, for the `docker` provider's tests where no runtime exists: it appends
// each call's argv (and the stdin of `exec --interactive`) as one JSON line to $FAKE_RUNTIME_LOG and answers
// the way the real CLI does for the calls the provider makes: `info` (fails like a stopped daemon when
// $FAKE_RUNTIME_DAEMON_DOWN is set), `image inspect` (1 until the image was built or pulled), `build`, `pull`,
// `run --detach` (prints an id), `exec … bash -c CMD` (prints "ran: CMD"; a CMD containing `sleep-forever`
// hangs), `cp CONTAINER:/logs/verifier/. DIR` (writes reward.txt = $FAKE_REWARD), `rm`, `restart`.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const log = process.env.FAKE_RUNTIME_LOG;
const state = `${log}.images`;
const images = existsSync(state) ? readFileSync(state, "utf8").split("\n").filter(Boolean) : [];
const stdin = args[0] === "exec" && args.includes("--interactive") ? readFileSync(0).toString("utf8") : null;
appendFileSync(log, JSON.stringify({ args, stdin }) + "\n");

const [cmd, sub] = args;
if (cmd === "info") {
  if (process.env.FAKE_RUNTIME_DAEMON_DOWN) {
    process.stderr.write(
      "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n",
    );
    process.exit(1);
  }
  process.stdout.write("{}\n");
} else if (cmd === "image" && sub === "inspect") {
  if (!images.includes(args[2])) {
    process.stderr.write(`Error: No such image: ${args[2]}\n`);
    process.exit(1);
  }
  process.stdout.write("[{}]\n");
} else if (cmd === "build") {
  const tag = args[args.indexOf("--tag") + 1];
  if (!existsSync(args[args.indexOf("--file") + 1])) process.exit(1);
  writeFileSync(state, [...images, tag].join("\n"));
} else if (cmd === "pull") {
  writeFileSync(state, [...images, args[1]].join("\n"));
} else if (cmd === "run") {
  process.stdout.write("0123456789abcdef\n");
} else if (cmd === "exec") {
  const i = args.indexOf("bash");
  if (i >= 0 && args[i + 1] === "-c") {
    if (args[i + 2].includes("sleep-forever")) setInterval(() => undefined, 1000);
    else process.stdout.write(`ran: ${args[i + 2]}\n`);
  }
} else if (cmd === "cp") {
  writeFileSync(path.join(args[2], "reward.txt"), process.env.FAKE_REWARD ?? "1");
}
