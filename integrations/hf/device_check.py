"""The GPU device check of the hf-local backend: one script, no downloads, one JSON report.

    python3 -m integrations.hf.device_check [--size 0.6b|1.7b|4b] [--steps 20] [--out report.json]
    python3 -m integrations.hf.device_check --tiny --steps 4      # the CPU rehearsal (the tiny model)
    python3 -m integrations.hf.device_check --full ...             # full fine-tuning instead of LoRA

It builds a randomly initialised Qwen3-shaped model with transformers (hf_model.build_random; the final norm is
scaled ×5 so the random model's next-token distribution is peaked enough to sample a chosen token at all),
serves it (serve.py), and trains it with the real loop (train.train) against a stand-in of the console's batch
API (the three routes integrations/slime/client.py calls). Each leased sample is a real chat completion from the
served policy over HTTP, recorded as the proxy records it (token ids, behaviour log-probs); its reward targets
one token: +1 when the reply starts with it, −1 otherwise. For OPD the stand-in's teacher is the frozen base
scored over HTTP on the same context (/base/tokenize, /base/generate, SGLang's convention) plus one nat on the
target token, so the OPD signal targets the token too (a random model has no use for a hint's words).
Methods grpo, opd and combine (sampled estimator) each run ``--steps`` steps from the same initial adapter,
beside an lr-0 control (grpo, same pipeline, same seed), while client threads keep requesting completions.

The report: served tokens/s idle and during training, mean step time, peak GPU memory, the mean
|behaviour − trainer| log-prob on the same ids (train/logprob_mismatch), requests failed (all of them, across
every weight swap), and per method the target token's probability at the probe position after each step,
beside the control's.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import torch

from integrations.slime.client import ControlPlaneClient, Settings
from integrations.slime.leases import LeaseBook

from .model import TRAIN
from .train import TrainConfig, Trainer, response_logp, serve, train

PROBE = [{"role": "user", "content": "Name one colour."}]
HINT = "Start your reply with the target word."
TEACHER_BONUS = 1.0


def post(url: str, body: dict[str, Any], timeout: float = 300) -> dict[str, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=timeout) as res:
        return json.loads(res.read())


class StandInConsole:
    """The console's batch API as the trainer sees it: lease (samples made on demand), ack, report."""

    def __init__(self, server_root: str, method: str, target: int, max_tokens: int):
        self.root, self.method, self.target, self.max_tokens = server_root, method, target, max_tokens
        self.acks: list[dict[str, Any]] = []
        console = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                if self.path.endswith("/batches/lease"):
                    # A real console leases samples recorded earlier; the stand-in samples them now, all at once,
                    # so a step waits for a few served batches, not for one request after another.
                    with ThreadPoolExecutor(max_workers=body["size"]) as pool:
                        samples = list(pool.map(lambda _: console.sample(), range(body["size"])))
                    out = {"leaseId": uuid.uuid4().hex, "samples": samples, "paused": False}
                elif re.search(r"/batches/[^/]+/ack$", self.path):
                    console.acks.append(body)
                    out = {"trainedSamples": 0, "replayed": False, "step": body["step"]}
                else:
                    out = {"stop": False, "paused": False, "renewed": []}
                data = json.dumps(out).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def sample(self) -> dict[str, Any]:
        res = post(f"{self.root}/v1/chat/completions", {"model": "policy", "messages": PROBE, "max_tokens": self.max_tokens, "temperature": 1.0})
        choice = res["choices"][0]
        ids = choice["token_ids"]
        lps = [e["logprob"] for e in choice["logprobs"]["content"]]
        hit = bool(ids) and ids[0] == self.target
        sample: dict[str, Any] = {
            "sampleId": uuid.uuid4().hex, "messages": PROBE, "tools": None, "response": {"content": choice["message"].get("content")},
            "responseTokenIds": ids, "lossMask": [1] * len(ids), "rolloutLogprobs": lps, "reward": 1.0 if hit else -1.0,
            "kind": "RL", "teacherLogprobs": None, "hint": None, "policyVersion": res["metadata"]["weight_version"],
        }
        if self.method in ("opd", "combine"):
            prompt = post(f"{self.root}/base/tokenize", {"messages": PROBE})["tokens"]
            scored = post(f"{self.root}/base/generate", {"input_ids": prompt + ids, "sampling_params": {"max_new_tokens": 0}, "return_logprob": True, "logprob_start_len": len(prompt) - 1})
            teacher = [e[0] for e in scored["meta_info"]["input_token_logprobs"][1:]]
            sample.update(kind="BOTH" if self.method == "combine" else "OPD", hint=HINT,
                          teacherLogprobs=[t + (TEACHER_BONUS if tok == self.target else 0.0) for t, tok in zip(teacher, ids)])
        return sample

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Load:
    """Client threads requesting completions until stopped; counts tokens and failures."""

    def __init__(self, url: str, threads: int, max_tokens: int):
        self.url, self.max_tokens = url, max_tokens
        self.tokens, self.failures, self.requests = 0, 0, 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._run, daemon=True) for _ in range(threads)]

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                res = post(f"{self.url}/chat/completions", {"model": "policy", "messages": PROBE, "max_tokens": self.max_tokens, "temperature": 1.0})
                with self._lock:
                    self.requests += 1
                    self.tokens += len(res["choices"][0]["token_ids"])
            except Exception:  # noqa: BLE001 (counted: the check's result)
                with self._lock:
                    self.failures += 1

    def measure(self, seconds: float | None = None, until: threading.Event | None = None) -> tuple[float, float]:
        """(tokens/s, seconds) over a window: a fixed duration, or until ``until`` is set."""
        start_tokens, t0 = self.tokens, time.monotonic()
        if until is not None:
            until.wait()
        else:
            time.sleep(seconds or 0)
        dt = time.monotonic() - t0
        return (self.tokens - start_tokens) / dt, dt

    def start(self) -> "Load":
        for t in self._threads:
            t.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=600)


def target_prob(model: Any, target: int) -> float:
    prompt = model.encode(model.render(PROBE))
    with torch.no_grad():
        row = response_logp(model, [prompt + [target]], [1], TRAIN, full=True)[0][0]
    return float(row[target].exp())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiny", action="store_true", help="the CPU rehearsal: the tiny model instead of a random Qwen3")
    ap.add_argument("--size", default="0.6b", help="Qwen3 shape: 0.6b, 1.7b or 4b")
    ap.add_argument("--layers", type=int, default=None, help="fewer layers than the real shape (a quicker check)")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--full", action="store_true", help="full fine-tuning (four copies of the weights) instead of LoRA")
    ap.add_argument("--max-tokens", type=int, default=8, help="reply length of the leased samples")
    ap.add_argument("--load-threads", type=int, default=4)
    ap.add_argument("--idle-seconds", type=float, default=20)
    ap.add_argument("--target-rank", type=int, default=2, help="the target is the probe's k-th most likely first token")
    ap.add_argument("--out", default="hf-device-check.json")
    args = ap.parse_args(argv)

    torch.manual_seed(0)
    cuda = torch.cuda.is_available() and not args.tiny
    t_build = time.monotonic()
    if args.tiny:
        from .tiny import TinyChatModel

        model: Any = TinyChatModel(seed=0, rank=args.rank, alpha=2 * args.rank, full=args.full)
        description = "tiny (CPU rehearsal)"
    else:
        from .hf_model import build_random

        model = build_random(args.size, layers=args.layers, rank=args.rank, alpha=2 * args.rank, dtype="bfloat16" if cuda else "float32", full=args.full)
        with torch.no_grad():
            for net in model.copies.values() if args.full else [model.peft.get_base_model()]:
                net.model.norm.weight.mul_(5.0)
        description = f"random Qwen3-{args.size}" + (f" ({args.layers} layers)" if args.layers else "")
    print(json.dumps({"built": description, "seconds": round(time.monotonic() - t_build, 2)}), flush=True)
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    server, slots, batcher = serve(model, {"HF_MAX_BATCH": "8"}, "policy")
    initial = [p.detach().clone() for p in model.trainable_parameters()]
    prompt = model.encode(model.render(PROBE))
    with torch.no_grad():
        first = response_logp(model, [prompt + [0]], [1], None, full=True)[0][0]
    target = int(first.topk(args.target_rank).indices[-1])
    report: dict[str, Any] = {
        "model": description, "device": torch.cuda.get_device_name(0) if cuda else "cpu", "torch": torch.__version__,
        "steps": args.steps, "batch": args.batch, "lr": args.lr, "lora_rank": None if args.full else args.rank, "finetune": "full" if args.full else "lora", "target_token": target,
        "target_initial_prob": float(first[target].exp()), "methods": {},
    }
    load = Load(server.url, args.load_threads, 32).start()
    report["tokens_per_s_idle"], _ = load.measure(seconds=args.idle_seconds)
    print(json.dumps({"tokens_per_s_idle": report["tokens_per_s_idle"], "requests": load.requests}), flush=True)
    training_rate, step_times, mismatch = [], [], []
    runs = [("grpo", args.lr), ("opd", args.lr), ("combine", args.lr), ("control", 0.0)]
    for name, lr in runs:
        with torch.no_grad():
            for p, p0 in zip(model.trainable_parameters(), initial):
                p.copy_(p0)
        slots.publish(0)
        method = "grpo" if name == "control" else name
        console = StandInConsole(server.root, method, target, args.max_tokens)
        cfg = TrainConfig(method=method, lr=lr, batch_size=args.batch, normalize=method != "opd")
        trainer = Trainer(model, slots, cfg)
        book = LeaseBook(ControlPlaneClient(Settings(url=console.url, api_key="stand-in", run_id=f"device-check-{name}")))
        probs = [target_prob(model, target)]
        done = threading.Event()
        window: dict[str, float] = {}

        def measure() -> None:
            window["rate"], window["seconds"] = load.measure(until=done)

        meter = threading.Thread(target=measure)
        meter.start()
        t_method = time.monotonic()
        for step in range(args.steps):
            train(trainer, book, name, f"/tmp/hf-device-check/{name}", max_steps=1, poll_s=0.1)
            book.pending.clear()
            probs.append(target_prob(model, target))
            ack = console.acks[-1]["metrics"] if console.acks else {}
            print(json.dumps({"method": name, "step": step + 1, "elapsed_s": round(time.monotonic() - t_method, 2),
                              "step_time_s": ack.get("train/step_time_s"), "target_prob": probs[-1]}), flush=True)
        done.set()
        meter.join()
        console.close()
        training_rate.append(window["rate"])
        metrics = [a["metrics"] for a in console.acks]
        step_times += [m["train/step_time_s"] for m in metrics]
        mismatch += [m["train/logprob_mismatch"] for m in metrics]
        report["methods"][name] = {"lr": lr, "target_prob": probs, "final_target_prob": probs[-1],
                                   "mean_step_time_s": sum(m["train/step_time_s"] for m in metrics) / len(metrics),
                                   "mean_logprob_mismatch": sum(m["train/logprob_mismatch"] for m in metrics) / len(metrics)}
        # Progress, one line per method: a check stopped at its time limit still says how far it got.
        print(json.dumps({"method": name, **{k: v for k, v in report["methods"][name].items() if k != "target_prob"}}), flush=True)
    load.stop()
    control = report["methods"]["control"]["final_target_prob"]
    report.update({
        "tokens_per_s_training": sum(training_rate) / len(training_rate),
        "mean_step_time_s": sum(step_times) / len(step_times),
        "mean_logprob_mismatch": sum(mismatch) / len(mismatch),
        "peak_gpu_memory_gb": torch.cuda.max_memory_allocated() / 1024**3 if cuda else None,
        "requests": load.requests, "failed_requests": load.failures + server.failures,
        "target_prob_over_control": {m: report["methods"][m]["final_target_prob"] - control for m in ("grpo", "opd", "combine")},
    })
    idle = report["tokens_per_s_idle"]
    report["throughput_ratio_training_vs_idle"] = report["tokens_per_s_training"] / idle if idle > 0 else None
    server.close()
    batcher.close()
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
    print(json.dumps({k: v for k, v in report.items() if k != "methods"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
