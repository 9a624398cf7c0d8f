#!/usr/bin/env bash
# No code outside harness/launch/ compares a launcher name (issue 13): launchers are types, and what
# differs between them is asked of the type. trainer/comm/ is the rank's own bootstrap, which detects
# from its environment which launcher started it (PMI2, PMIx or a file rendezvous) and is not the
# harness's launcher choice. Usage: launcher_names.sh SOURCE_DIR
set -euo pipefail
cd "$1"
hits=$(grep -rnE '(==|!=)\s*"(local|srun|mpirun)"|"(local|srun|mpirun)"\s*(==|!=)|launcher(\(\))?\s*(==|!=)|compare\("(local|srun|mpirun)"' \
         --include=*.h --include=*.cpp --include=*.cu --include=*.cuh \
         common results binding slurm container trainer harness bench \
       | grep -v -e '^harness/launch/' -e '^trainer/comm/' || true)
if [ -n "$hits" ]; then
  echo "launcher names compared outside harness/launch/:"
  echo "$hits"
  exit 1
fi
echo "no launcher name is compared outside harness/launch/"
