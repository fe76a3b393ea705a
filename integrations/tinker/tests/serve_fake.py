"""The bridge's sampling endpoint on the fake Tinker SDK, for the TypeScript tests (not a unittest module).

    python3 integrations/tinker/tests/serve_fake.py

Starts what ``bridge.main`` starts with TINKER_SERVE_PORT set (``bridge.start_serving``: the endpoint, and its
report to the control plane as the run's rolloutUrl when CONTROL_PLANE_URL/RUN_ID/CONTROL_PLANE_API_KEY are
set), fills the slot with the base model's sampler as ``bridge.train`` does, prints the endpoint's URL, then
reads stdin: a line ``step <n> <sampler path>`` swaps in that step's sampler, as ``train`` does after a step.
With TINKER_PER_USER=1 the endpoint is the per-user one (``LoraSamplers``: users' samplers loaded by name);
FAKE_TINKER_SKILLS (JSON ``{sampler path: offset}``) sets how much likelier each path scores every token than the base.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "slime", "tests"), os.path.join(HERE, "..", "..", "..")]

import fake_tinker  # noqa: E402
from fake_tinker import make_module  # noqa: E402
from fakes import CharTokenizer  # noqa: E402
from integrations.slime.client import ControlPlaneClient, Settings  # noqa: E402
from integrations.tinker import bridge  # noqa: E402
from integrations.tinker.serve import LoraSamplers  # noqa: E402


class Tokenizer(CharTokenizer):
    eos_token_id = 3


class NoControlPlane:
    def report(self, **kwargs):
        return {}


def main() -> None:
    fake_tinker.SKILLS.update(json.loads(os.environ.get("FAKE_TINKER_SKILLS", "{}")))
    tinker, _ = make_module(Tokenizer())
    cfg = bridge.BridgeConfig(base_model=os.environ.get("TINKER_BASE_MODEL", "Qwen/Qwen3-4B-Instruct-2507"))
    client = ControlPlaneClient(Settings.from_env(), retries=0) if os.environ.get("RUN_ID") else NoControlPlane()
    service = tinker.ServiceClient()
    loras = LoraSamplers(service) if os.environ.get("TINKER_PER_USER") == "1" else None
    server = bridge.start_serving(tinker, client, cfg, {"TINKER_SERVE_PORT": "0", **os.environ}, loras=loras)
    server.slot.set(service.create_sampling_client(base_model=cfg.base_model), Tokenizer(), None, 0)
    print(server.url, flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        _, step, path = line.split()
        server.slot.set(service.create_sampling_client(model_path=path), Tokenizer(), path, int(step))
        print(f"serving step {step}", flush=True)
    server.close()


if __name__ == "__main__":
    main()
