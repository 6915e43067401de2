#!/usr/bin/env bash
# The main job on a bundled example: on a desktop the app opens the ShuffleNet scenario (build/app/gir-workbench);
# headless, the same walkthrough runs through `gir`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/app/gir-workbench ]; then
  exec build/app/gir-workbench scenarios/shufflenet.onnx
fi
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "No display found: running the headless walkthrough through the gir command instead."
else
  echo "The desktop app was not built here (Qt 6 or Graphviz missing): running the headless walkthrough through the gir command."
fi
exec build/cli/gir walkthrough
