#!/usr/bin/env bash
# `bind` must run inside images that carry none of our libraries (NVIDIA's containers):
#   bind_glibc_only.sh needed BIND           its ELF NEEDED entries are glibc's only (libc, libm, ld.so)
#   bind_glibc_only.sh rootfs BIND HARNESS   in a podman container whose root holds nothing but bind and
#                                            glibc's three files, it applies a plan's binding and execs
#                                            (SKIPPED without root or podman + runc)
set -uo pipefail
mode=$1
bind=$(readlink -f "$2")
fail() { echo "FAIL: $*"; exit 1; }
case "$mode" in
  needed)
    needed=$(readelf -d "$bind" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
    echo "bind needs: $needed"
    for lib in $needed; do
      case "$lib" in libc.so.6|libm.so.6|ld-linux-x86-64.so.2) ;; *) fail "bind needs $lib, which is not glibc" ;; esac
    done
    echo PASS ;;
  rootfs)
    harness=$3
    repo=$(cd "$(dirname "$0")/../../.." && pwd)
    [ "$(id -u)" = 0 ] || { echo "SKIPPED: needs root (podman)"; exit 77; }
    for t in podman runc; do
      command -v "$t" >/dev/null || { echo "SKIPPED: $t is not installed (scripts/setup --test)"; exit 77; }
    done
    export CONTAINERS_CONF=$repo/container/containers.conf
    work=$(mktemp -d /tmp/bert-bind-rootfs-XXXXXX)
    trap 'rm -rf "$work"' EXIT
    root=$work/root
    mkdir -p "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
    cp "$bind" "$root/bind"
    # glibc exactly as the dynamic loader finds it here, at the same paths
    while read -r path; do
      mkdir -p "$root$(dirname "$path")"
      cp -L "$path" "$root$path"
    done < <(ldd "$bind" | grep -o '/[^ ]*' | sort -u)
    "$harness" run "$repo/systems/local.yaml" --dry-run --json --set 'topology.synthetic=pack:1 numa:1 core:2 pu:1' \
      >"$root/plan.json" 2>"$work/harness.txt" || { cat "$work/harness.txt"; fail "harness --dry-run --json"; }
    find "$root" -type f | sed "s|^$root||" | sort | tr '\n' ' '; echo
    out=$(podman run --rm --network=none --env LOCAL_RANK=0 --rootfs "$root" /bind --plan /plan.json -- /bind --plan /plan.json --print 2>&1) ||
      { echo "$out"; fail "bind in a root with nothing but glibc"; }
    echo "$out"
    grep -q 'cpus: 0-1' <<<"$out" || fail "bind did not print the plan's binding"
    echo PASS ;;
  *) echo "usage: bind_glibc_only.sh needed|rootfs BIND [HARNESS]" >&2; exit 2 ;;
esac
