#!/usr/bin/env bash
# Count lines of tracked source files.
set -euo pipefail
dir="${1:-.}"
total=0
for f in $(git -C "$dir" ls-files '*.go' '*.py'); do
  n=$(wc -l < "$dir/$f")
  total=$((total + n))
done
printf 'total: %d\n' "$total"
