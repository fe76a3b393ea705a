#!/bin/bash
# Reward 1 when /app/answer.txt holds the number of lines whose level (second field) is ERROR.
expected=$(awk '$2 == "ERROR"' /app/data/service.log | wc -l)
if [ -f /app/answer.txt ] && [ "$(tr -d '[:space:]' < /app/answer.txt)" = "$expected" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
