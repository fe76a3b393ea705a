"""The preflight against a stand-in slime whose parser is built, at test time, from the argument fixture
extracted from OpenClaw-RL's slime fork (tests/fixtures/slime/openclaw-rl-fork.json, see
integrations/contracts/README.md), plus a fake config.json, torch (GPU count) and SGLang distribution."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from integrations.slime import preflight

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "slime", "openclaw-rl-fork.json")

# SGLang ServerArgs flags slime re-exports with a --sglang- prefix: not in the fixture (they come from the
# installed sglang), so the stand-in adds the few the generated command uses.
SGLANG_FLAGS = {
    "--sglang-tool-call-parser": str,
    "--sglang-reasoning-parser": str,
    "--sglang-mem-fraction-static": float,
    "--sglang-context-length": int,
}

STANDIN = '''
"""Stand-in for slime.utils.arguments, generated from {fixture}."""
import argparse, json, sys

_FIX = json.load(open({fixture!r}))
_TYPES = {{"int": int, "float": float, "str": str}}
_SGLANG = {sglang!r}

def _add(parser, a):
    kw = {{"dest": a["dest"]}}
    if a["default_literal"]:
        kw["default"] = a["default"]
    if a["kind"] == "flag":
        act = a["action"]
        if act == "BooleanOptionalAction":
            kw["action"] = argparse.BooleanOptionalAction
            opts = [o for o in a["option_strings"] if not o.startswith("--no-") or "--" + o[5:] not in a["option_strings"]]
        else:
            kw["action"] = act if act in ("store_true", "store_false", "count") else "store_true"
            opts = a["option_strings"]
    else:
        opts = a["option_strings"]
        kw["type"] = _TYPES.get(a["type"], str)
        if isinstance(a.get("choices"), list) and a["type"] in _TYPES:
            kw["choices"] = a["choices"]
        if a.get("nargs") is not None and not isinstance(a["nargs"], dict):
            kw["nargs"] = a["nargs"]
    parser.add_argument(*opts, **kw)

def get_slime_extra_args_provider(add_custom_arguments=None):
    def add_slime_arguments(parser):
        for a in _FIX["parsers"]["megatron"]["args"]:
            _add(parser, a)
        for name, t in _SGLANG.items():
            parser.add_argument(name, type={{"str": str, "int": int, "float": float}}[t])
        return parser
    return add_slime_arguments

def parse_args(add_custom_arguments=None):
    parser = argparse.ArgumentParser(allow_abbrev=False)
    get_slime_extra_args_provider()(parser)
    return parser.parse_args()   # the fork: unknown flags are fatal
'''

QWEN3_4B_2507_CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "hidden_size": 2560,
    "intermediate_size": 9728,
    "num_attention_heads": 32,
    "num_hidden_layers": 36,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "rms_norm_eps": 1e-06,
    "rope_theta": 5000000,
    "tie_word_embeddings": True,
    "vocab_size": 151936,
}

QWEN3_4B_ARCH = [
    "--swiglu", "--num-layers", "36", "--hidden-size", "2560", "--ffn-hidden-size", "9728",
    "--num-attention-heads", "32", "--group-query-attention", "--num-query-groups", "8",
    "--use-rotary-position-embeddings", "--disable-bias-linear", "--normalization", "RMSNorm",
    "--norm-epsilon", "1e-6", "--vocab-size", "151936", "--kv-channels", "128", "--qk-layernorm",
]


class PreflightTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        root = cls.tmp.name
        cls.site = os.path.join(root, "site")
        for pkg in ("slime", "slime/utils", "megatron", "megatron/training", "torch"):
            os.makedirs(os.path.join(cls.site, pkg), exist_ok=True)
            open(os.path.join(cls.site, pkg, "__init__.py"), "w").close()
        with open(os.path.join(cls.site, "slime", "utils", "arguments.py"), "w") as f:
            f.write(STANDIN.format(fixture=FIXTURE, sglang={k: v.__name__ for k, v in SGLANG_FLAGS.items()}))
        with open(os.path.join(cls.site, "megatron", "training", "arguments.py"), "w") as f:
            f.write("def add_megatron_arguments(parser):\n    return parser  # the stand-in's provider adds Megatron's flags too\n")
        with open(os.path.join(cls.site, "torch", "__init__.py"), "w") as f:
            f.write("import os\nclass cuda:\n    @staticmethod\n    def device_count():\n        return int(os.environ.get('FAKE_GPUS', '8'))\n")
        dist = os.path.join(cls.site, "sglang-0.5.2.dist-info")
        os.makedirs(dist)
        with open(os.path.join(dist, "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.2\n")
        cls.hf = os.path.join(root, "Qwen3-4B-Thinking-2507")
        os.makedirs(cls.hf)
        with open(os.path.join(cls.hf, "config.json"), "w") as f:
            json.dump(QWEN3_4B_2507_CONFIG, f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def base_args(self):
        return [
            "--actor-num-nodes", "1", "--actor-num-gpus-per-node", "4", "--rollout-num-gpus", "2",
            "--rollout-num-gpus-per-engine", "2", "--num-gpus-per-node", "8",
            "--hf-checkpoint", self.hf, "--ref-load", self.hf, "--megatron-to-hf-mode", "bridge",
            "--tensor-model-parallel-size", "4", "--sequence-parallel",
            "--recompute-granularity", "full", "--recompute-method", "uniform", "--recompute-num-layers", "1",
            "--advantage-estimator", "grpo", "--loss-type", "custom_loss",
            "--custom-loss-function-path", "integrations.slime.combine_loss.combine_loss_function",
            "--prm-enable", "--prm-num-gpus", "2", "--prm-num-gpus-per-engine", "2", "--prm-model-path", self.hf,
            "--sglang-tool-call-parser", "qwen25", "--sglang-reasoning-parser", "qwen3",
            "--sglang-mem-fraction-static", "0.8", "--sglang-context-length", "32768",
            *QWEN3_4B_ARCH, "--rotary-base", "5000000",
        ]

    def preflight(self, args, gpus="8", extra=()):
        path = os.path.join(self.tmp.name, "args.json")
        with open(path, "w") as f:
            json.dump(args, f)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": os.pathsep.join([self.site, ROOT]), "FAKE_GPUS": gpus, "PYTHONDONTWRITEBYTECODE": "1"}
        out = subprocess.run(
            [sys.executable, "-m", "integrations.slime.preflight", "--args-file", path, *extra],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
        )
        return out.returncode, out.stdout + out.stderr

    def test_the_fixture_is_the_pinned_fork(self):
        with open(FIXTURE) as f:
            header = json.load(f)["header"]
        self.assertEqual(header["sources"][0]["repo"], "Gen-Verse/OpenClaw-RL")
        self.assertEqual(header["sources"][0]["commit"], "f48ac358adf9873b5cb2210f1cb234a52ed8a8a3")
        self.assertIn("extract_slime_args.py openclaw-rl-fork", header["command"])

    def test_a_complete_command_passes(self):
        code, out = self.preflight(self.base_args(), extra=("--min-sglang", "0.5.0"))
        self.assertEqual(code, 0, out)
        self.assertIn("PREFLIGHT PASSED", out)
        self.assertIn("architecture flags match", out)
        self.assertIn("SGLang 0.5.2", out)

    def test_every_problem_is_listed_and_the_exit_status_is_nonzero(self):
        args = [a for a in self.base_args()]
        # Drop the architecture flags and bridge mode (what the docs used to leave to SLIME_EXTRA_ARGS), add a typo.
        for flag, n in (("--rotary-base", 1), ("--hidden-size", 1), ("--num-layers", 1), ("--megatron-to-hf-mode", 1)):
            i = args.index(flag)
            del args[i : i + 1 + n]
        args += ["--prm-enabel"]
        code, out = self.preflight(args, gpus="4", extra=("--min-sglang", "0.6"))
        self.assertEqual(code, 1, out)
        problems = [ln for ln in out.splitlines() if ln.startswith("PREFLIGHT PROBLEM:")]
        text = "\n".join(problems)
        self.assertIn("slime's parser rejected the arguments", text)  # the typo is fatal on the fork
        self.assertIn("--prm-enabel is not an argument", text)
        self.assertIn("rope_theta=5000000 but --rotary-base absent (Megatron default 10000)", text)
        self.assertIn("hidden_size=2560 but --hidden-size absent", text)
        self.assertIn("num_hidden_layers=36 but --num-layers absent", text)
        self.assertIn("--megatron-to-hf-mode bridge", text)
        self.assertIn("this node has 4 GPU(s)", text)
        self.assertIn("SGLang 0.5.2 is older than the required 0.6", text)
        self.assertGreaterEqual(len(problems), 8)

    def test_tied_embeddings_and_kv_heads_are_compared(self):
        args = self.base_args()
        args += ["--untie-embeddings-and-output-weights"]
        i = args.index("--num-query-groups")
        args[i + 1] = "4"
        code, out = self.preflight(args)
        self.assertEqual(code, 1, out)
        self.assertIn("tie_word_embeddings=True but --untie-embeddings-and-output-weights is present", out)
        self.assertIn("num_key_value_heads=8 but --num-query-groups 4", out)



class GpuCountTest(unittest.TestCase):
    ARGV = ["--num-gpus-per-node", "8", "--actor-num-nodes", "1", "--actor-num-gpus-per-node", "4", "--rollout-num-gpus", "2", "--prm-enable", "--prm-num-gpus", "1"]

    def run_check(self, argv, nodes):
        report = preflight.Report()
        preflight.check_gpus(report, argv, cluster=lambda: nodes, local=lambda: None)
        return report

    def test_the_in_job_prm_teacher_counts_its_gpus(self):
        four_way = self.ARGV + ["--prm-teacher-load", "/models/prm", "--prm-teacher-num-gpus", "1"]
        self.assertFalse(self.run_check(four_way, [8]).problems)
        self.assertTrue(any("needs 9 GPUs" in p for p in self.run_check(four_way + ["--prm-teacher-num-gpus", "2"], [8]).problems))
        # Without --prm-teacher-num-gpus the fork reserves 1 GPU for the teacher.
        three_rollout = self.ARGV + ["--rollout-num-gpus", "3"]
        self.assertFalse(self.run_check(three_rollout, [8]).problems)
        self.assertTrue(any("needs 9 GPUs" in p for p in self.run_check(three_rollout + ["--prm-teacher-load", "/m"], [8]).problems))


if __name__ == "__main__":
    unittest.main()
