#!/usr/bin/env bash
# Make the enroot squashfs image that pyxis runs (--container-image=/path/X.sqsh, or CONT=...).
#
#   container/import.sh [-o OUT.sqsh] [-f] IMAGE
#   container/import.sh [-o OUT.sqsh] [-f] --build [TAG]
#
# IMAGE is what enroot imports: dockerd://NAME:TAG (an image in the local Docker daemon, e.g. after
# `docker build`), docker://[USER@][REGISTRY#]IMAGE[:TAG] (a registry; nvcr.io needs credentials in
# $ENROOT_CONFIG_PATH/.credentials), or podman://NAME:TAG.
# --build first runs `docker build -f container/Dockerfile -t TAG .` (TAG: bert-mlperf:latest) and
# then imports dockerd://TAG. -o defaults to the image name without user and registry, ':' and '/'
# made '+', plus .sqsh, as enroot does; -f replaces an existing OUT. ENROOT_SQUASH_OPTIONS etc.
# pass through to enroot.
set -euo pipefail

die() { echo "import.sh: error: $*" >&2; exit 2; }
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
out=""
force=0
build=0
image=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o|--output) [ $# -ge 2 ] || die "$1 needs a file name"; out=$2; shift 2 ;;
    -f|--force) force=1; shift ;;
    --build)
      build=1
      shift
      if [ $# -gt 0 ] && [[ $1 != -* ]]; then image=$1; shift; fi ;;
    -h|--help) usage ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$image" ] || die "one image only (got '$image' and '$1')"; image=$1; shift ;;
  esac
done

if [ "$build" = 1 ]; then
  image=${image:-bert-mlperf:latest}
  case "$image" in *://*) die "--build takes a Docker tag (NAME:TAG), not a URI: $image" ;; esac
  command -v docker >/dev/null || die "--build needs docker on PATH"
  echo "import.sh: docker build -f container/Dockerfile -t $image $repo"
  docker build -f "$repo/container/Dockerfile" -t "$image" "$repo"
  image=dockerd://$image
fi
[ -n "$image" ] || usage
case "$image" in
  dockerd://?*|docker://?*|podman://?*) ;;
  *://*) die "unsupported scheme in '$image': use dockerd://, docker:// or podman://" ;;
  *) die "'$image' has no scheme: use dockerd://$image (local Docker) or docker://$image (registry)" ;;
esac

if [ -z "$out" ]; then
  name=${image#*://}
  name=${name#*@}   # USER@
  name=${name#*#}   # REGISTRY#
  name=${name//\//+}
  out=${name//:/+}.sqsh
fi
case "$out" in *.sqsh|*.squashfs) ;; *) die "output '$out' should end in .sqsh" ;; esac
case "$out" in *,*) die "output '$out' contains a comma: pyxis cannot mount such a path" ;; esac
if [ -e "$out" ]; then
  [ "$force" = 1 ] || die "$out exists (use -f to replace it)"
  rm -f -- "$out"
fi
mkdir -p -- "$(dirname -- "$out")"

command -v enroot >/dev/null || die "enroot is not installed on this machine (https://github.com/NVIDIA/enroot; not packaged by Debian)"
echo "import.sh: enroot import -o $out $image"
enroot import -o "$out" "$image"
abs=$(cd "$(dirname -- "$out")" && pwd)/$(basename -- "$out")
echo "import.sh: done. Use it with: CONT=$abs sbatch slurm/run.sub systems/X.yaml"
