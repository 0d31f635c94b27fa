#!/usr/bin/env bash
# Proves the README's test command on a clean clone: clones the committed HEAD into a temporary
# directory and runs, there, exactly the command the README gives under "Run every test".
# Uncommitted changes are not part of the proof (commit first). Keeps the clone on failure.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

# The first ```sh block after the "Run every test" line of the README.
command="$(awk '/^Run every test/ { found = 1 } found && /^```sh/ { inside = 1; next } inside && /^```/ { exit } inside { print }' "$repo/README.md")"
if [ -z "$command" ]; then
  echo "README.md has no \`\`\`sh block after \"Run every test\"." >&2
  exit 1
fi

clone="$(mktemp -d "${TMPDIR:-/tmp}/ollama-web-clean.XXXXXX")"
git clone --quiet --no-hardlinks "$repo" "$clone"
echo "clean clone of $(git -C "$clone" rev-parse --short HEAD) in $clone"
echo "running the README's test command: $command"
cd "$clone"
start=$SECONDS
if bash -euo pipefail -c "$command"; then
  echo "clean-clone test run passed in $((SECONDS - start)) s"
  cd / && rm -rf "$clone"
else
  status=$?
  echo "clean-clone test run FAILED (exit $status) after $((SECONDS - start)) s; the clone is kept in $clone" >&2
  exit "$status"
fi
