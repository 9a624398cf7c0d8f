#!/usr/bin/env bash
# The image systems/local-podman.yaml runs its ranks in, built without any registry: a Debian base made
# by mmdebstrap from Debian packages, the runtime libraries our .deb depends on (its Depends, as
# dpkg-shlibdeps computed them) installed with it, then the .deb itself installed with dpkg, and the
# result imported into podman. No CUDA library is in the image: trainer, harness, bind and bert-data run
# without one.
#   container/build-podman-image.sh DEB [TAG]      (root; mmdebstrap, podman; TAG: localhost/bert-harness:local)
# DEB: the bert-harness .deb (`cpack -G DEB` in the build tree). The suite is this machine's Debian
# release, since the .deb's Depends were computed against it.
set -euo pipefail
deb=$(readlink -f "$1")
tag=${2:-localhost/bert-harness:local}
[ -f "$deb" ] || { echo "build-podman-image: no such .deb: $1" >&2; exit 2; }
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
# "libfoo (>= 1), libbar" -> "libfoo,libbar"; the versions are checked again by dpkg -i below.
deps=$(dpkg-deb -f "$deb" Depends | sed 's/([^)]*)//g; s/[[:space:]]//g')
name=$(basename "$deb")
mmdebstrap --variant=essential --include="$deps" \
  --customize-hook="copy-in $deb /tmp" \
  --customize-hook="chroot \"\$1\" dpkg -i /tmp/$name" \
  --customize-hook="rm -f \"\$1\"/tmp/$name" \
  "$suite" - | podman import --change 'CMD ["harness", "--help"]' - "$tag" >/dev/null
echo "build-podman-image: $tag from $name ($suite)"
