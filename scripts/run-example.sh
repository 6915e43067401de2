#!/usr/bin/env bash
# The main job on a bundled example: the app on a desktop; headless, the same walkthrough through `gir`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/app/gir-workbench ]; then
  exec build/app/gir-workbench scenarios/shufflenet.onnx
fi
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "No display found: running the headless walkthrough through the gir command instead."
else
  echo "The desktop app is not part of this build yet: running the headless walkthrough through the gir command."
fi
exec build/cli/gir walkthrough
