#!/usr/bin/env bash
# The hf-local GPU checks in one call of a lent GPU machine (its python3 has torch, transformers and peft):
# versions, the LoRA device check, the serving profile, the Python suite with the transformers/peft glue, the
# full fine-tuning check. Each part has its own time limit, so a slow part still leaves the others' reports; each
# check prints one line per step. Writes into $OUT (or ./out). Sized from the first two GPU runs
# (integrations/hf/README.md, "GPU figures"): building the random 0.6B model takes about a minute, a LoRA step
# 12-15 s, the profile about 2 minutes, a full fine-tuning step about 7 s, so the limits (about 11 minutes in all)
# fit one lease of 15 minutes with the machine's start; raise LORA_STEPS / FULL_STEPS where more time is lent.
set -o pipefail
out="${OUT:-out}"; mkdir -p "$out"
export PYTHONUNBUFFERED=1
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  python3 -c "import sys, torch, transformers, peft; print(sys.version.split()[0], torch.__version__, transformers.__version__, peft.__version__)"
} 2>&1 | tee "$out/versions.txt"
timeout "${LORA_S:-260}" python3 -m integrations.hf.device_check --size 0.6b --steps "${LORA_STEPS:-4}" --idle-seconds 10 --out "$out/lora-0.6b.json" 2>&1 | tee "$out/lora.log"
timeout "${PROFILE_S:-150}" python3 -m integrations.hf.profile_serving --out "$out/profile.json" 2>&1 | tee "$out/profile.log"
timeout "${SUITE_S:-60}" python3 -m unittest discover -s integrations/hf/tests 2>&1 | tee "$out/suite.log"
timeout "${FULL_S:-180}" python3 -m integrations.hf.device_check --size 0.6b --full --steps "${FULL_STEPS:-2}" --idle-seconds 10 --out "$out/full-0.6b.json" 2>&1 | tee "$out/full.log"
