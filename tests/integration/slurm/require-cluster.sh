# Sourced by the Slurm test scripts: sets $repo; exits 77 (SKIPPED) unless slurm/local-cluster is up.
# shellcheck shell=bash
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
if ! "$repo/slurm/local-cluster" status >/dev/null 2>&1; then
  echo "SKIPPED: the local Slurm cluster is not up (slurm/local-cluster up needs root)"
  exit 77
fi
