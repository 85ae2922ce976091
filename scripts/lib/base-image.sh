# The local base image: Debian bookworm + openjdk-17-jre-headless made by debootstrap, for machines
# that cannot pull an image. Sourced by scripts/build-images.sh.
#
# The tarball (in $SHARDFLOW_IMAGE_CACHE, default ~/.cache/shardflow/images) and the imported image
# are named by a hash of this recipe and the mirror, and the image carries that hash as the label
# io.shardflow.recipe: a changed recipe builds a new base instead of reusing one an older recipe made.

BASE_SUITE=bookworm
BASE_PACKAGES=openjdk-17-jre-headless
# Left out of the image: every image copies the base in full under the vfs driver.
BASE_PRUNE=(var/cache/apt/archives var/lib/apt/lists usr/share/doc usr/share/man usr/share/locale usr/share/info)

base_mirror() { awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || echo http://deb.debian.org/debian; }

base_recipe_hash() {
  { declare -f base_rootfs base_tarball; echo "$BASE_SUITE $BASE_PACKAGES ${BASE_PRUNE[*]} $(base_mirror)"; } \
    | sha256sum | cut -c1-16
}

# Debootstraps into a new folder ($1) and makes it what an image's / must be: root's, 0755, so an
# image's non-root user can reach its files (mktemp -d alone would leave / as 0700).
base_rootfs() {
  local rootfs=$1 log=$2
  debootstrap --variant=minbase --include="$BASE_PACKAGES" "$BASE_SUITE" "$rootfs" "$(base_mirror)" >"$log" 2>&1 \
    || { tail -n 20 "$log" >&2; return 1; }
  local p; for p in "${BASE_PRUNE[@]}"; do rm -rf "${rootfs:?}/$p"/*; done
  chown 0:0 "$rootfs" && chmod 0755 "$rootfs"
}

base_tarball() { # prints the tarball's path, making it first when missing
  local cache=${SHARDFLOW_IMAGE_CACHE:-$HOME/.cache/shardflow/images} hash
  hash=$(base_recipe_hash)
  local tarball=$cache/base-$BASE_SUITE-jre17-$hash.tar
  if [[ ! -f $tarball ]]; then
    mkdir -p "$cache"
    if ! command -v debootstrap >/dev/null; then
      apt-get update -q -o DPkg::Lock::Timeout=300 >/dev/null 2>&1 || true
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=300 debootstrap >/dev/null
    fi
    local rootfs
    rootfs=$(mktemp -d)
    echo "debootstrap $BASE_SUITE + $BASE_PACKAGES (about a minute; recipe $hash, cached in $cache)" >&2
    base_rootfs "$rootfs" "$cache/debootstrap.log" || { rm -rf "$rootfs"; return 1; }
    # --numeric-owner and / itself in the archive: the imported image's / keeps root 0755.
    tar --numeric-owner -C "$rootfs" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
    rm -rf "$rootfs"
    # Tarballs of older recipes are dead weight now.
    find "$cache" -maxdepth 1 -name "base-$BASE_SUITE-jre17-*.tar" ! -name "$(basename "$tarball")" -delete
  fi
  echo "$tarball"
}

local_base_image() { # prints the image name, importing it first when no image of this recipe exists
  local hash image
  hash=$(base_recipe_hash)
  image=shardflow/base-jre17:$BASE_SUITE-${SHARDFLOW_BASE_TAG:-$hash}
  if [[ $(docker image inspect -f '{{index .Config.Labels "io.shardflow.recipe"}}' "$image" 2>/dev/null) != "$hash" ]]; then
    local tarball
    tarball=$(base_tarball) || return 1
    docker import --change "LABEL io.shardflow.recipe=$hash" "$tarball" "$image" >/dev/null
    echo "imported $image (recipe $hash)" >&2
  fi
  echo "$image"
}
