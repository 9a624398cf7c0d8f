#!/usr/bin/env bash
# ctest fixture around slurm/local-cluster: `up` (2 emulated nodes, 8 declared CPUs and 8 fake GPUs
# each) or `down`. Exits 77 (SKIPPED) when not root: the cluster needs root.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
if [ "$(id -u)" != 0 ]; then
  echo "SKIPPED: the local Slurm cluster needs root"
  exit 77
fi
case "${1:-}" in
  up) SLURM_NODES=2 SLURM_CPUS=8 SLURM_FAKE_GPUS=8 exec "$repo/slurm/local-cluster" up ;;
  down) exec "$repo/slurm/local-cluster" down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
