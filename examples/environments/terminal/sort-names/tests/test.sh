#!/bin/bash
# Reward 1 when /app/sorted.txt is exactly the expected list.
expected=$'ALICE\nBOB\nCAROL\nDAVE\nERIN'
if [ -f /app/sorted.txt ] && [ "$(cat /app/sorted.txt)" = "$expected" ]; then
  echo '{"reward": 1.0}' > /logs/verifier/reward.json
else
  echo '{"reward": 0.0}' > /logs/verifier/reward.json
fi
