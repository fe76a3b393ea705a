#!/bin/bash
# Reward 1 when the layout is right: an executable src/main.sh printing hello, docs/README.md starting
# with "# project", and an empty build/ folder.
p=/app/project
ok=1
[ -x "$p/src/main.sh" ] && [ "$("$p/src/main.sh")" = "hello" ] || ok=0
[ "$(head -n 1 "$p/docs/README.md" 2>/dev/null)" = "# project" ] || ok=0
[ -d "$p/build" ] && [ -z "$(ls -A "$p/build")" ] || ok=0
echo $ok > /logs/verifier/reward.txt
