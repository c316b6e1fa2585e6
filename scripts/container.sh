#!/usr/bin/env bash
# Builds mrtd's container image (deploy/container/Containerfile) offline, then inspects it:
# a non-root user, the entrypoint, no shell, every library the binary needs present.
#
#   scripts/container.sh [BINARY] [TAG] [OCI_ARCHIVE]     default: target/release/mrtd, mrtd:latest
#
# With OCI_ARCHIVE the image is also written there as an OCI archive (`podman load -i` or
# `skopeo copy oci-archive:...` reads it); with SOURCE_DATE_EPOCH set, every file and the
# image's creation time carry that time, so the same binary makes the same archive.
#
# The root filesystem is assembled from this machine: the binary, the shared libraries `ldd`
# lists for it (with the loader), the CA certificates, and /etc/passwd and /etc/group naming
# uid and gid 65532 ("mrtd"). Needs buildah, podman or docker; runs no container (the build
# has no RUN step), so it works where containers cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-target/release/mrtd}"
tag="${2:-mrtd:latest}"
archive="${3:-}"
[ -x "$binary" ] || { echo "container: no binary at $binary (cargo build --release -p mrtd)" >&2; exit 1; }
if command -v buildah >/dev/null; then
    builder=(buildah --storage-driver vfs)
    build=("${builder[@]}" bud --isolation chroot)
    save() { "${builder[@]}" push --quiet "$tag" "oci-archive:$1:$tag"; }
elif command -v podman >/dev/null; then
    builder=(podman)
    build=(podman build)
    save() { podman save --quiet --format oci-archive -o "$1" "$tag"; }
elif command -v docker >/dev/null; then
    builder=(docker)
    build=(docker build)
    # Docker 25 and later save an OCI image layout.
    save() { docker save -o "$1" "$tag"; }
else
    echo "container: needs buildah, podman or docker" >&2
    exit 1
fi

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
rootfs="$context/rootfs"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/etc/ssl" "$rootfs/var/lib/mrtd" "$rootfs/tmp"
chmod 1777 "$rootfs/tmp"
install -m 0755 "$binary" "$rootfs/usr/local/bin/mrtd"
# The libraries and the loader, at the paths the binary asks for.
ldd "$binary" | awk '/=> \// { print $3 } /^\t\// { print $1 }' | while read -r lib; do
    mkdir -p "$rootfs$(dirname "$lib")"
    cp -L "$lib" "$rootfs$lib"
done
cp -rL /etc/ssl/certs "$rootfs/etc/ssl/certs"
printf 'mrtd:x:65532:65532:mrtd:/var/lib/mrtd:/nonexistent\n' > "$rootfs/etc/passwd"
printf 'mrtd:x:65532:\n' > "$rootfs/etc/group"
cp deploy/container/Containerfile "$context/Containerfile"
# The data directory belongs to the image's user, so a fresh volume is writable by it.
if [ "$(id -u)" -eq 0 ]; then chown 65532:65532 "$rootfs/var/lib/mrtd"; fi
chmod 0700 "$rootfs/var/lib/mrtd"

if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    find "$rootfs" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
    if [ "${builder[0]}" != docker ]; then build+=(--timestamp "$SOURCE_DATE_EPOCH"); fi
fi
"${build[@]}" --quiet -f "$context/Containerfile" -t "$tag" "$context" >/dev/null
config=$("${builder[@]}" inspect --type image "$tag")
python3 - "$config" <<'PY'
import json, sys
image = json.loads(sys.argv[1])
# buildah gives one object with the OCI configuration under "OCIv1"; podman and docker a list
# of objects with it under "Config".
if isinstance(image, list):
    image = image[0]
image = image.get("OCIv1", image)
config = image.get("config") or image.get("Config") or {}
failures = []
if config.get("User") != "65532:65532":
    failures.append(f"user is {config.get('User')!r}, not 65532:65532")
if config.get("Entrypoint") != ["/usr/local/bin/mrtd"]:
    failures.append(f"entrypoint is {config.get('Entrypoint')!r}")
if "8080/tcp" not in (config.get("ExposedPorts") or {}):
    failures.append("port 8080 is not exposed")
if failures:
    print("container: " + "; ".join(failures), file=sys.stderr)
    sys.exit(1)
PY
# What the image holds: no shell, the binary and its loader. buildah mounts a working
# container's file system; podman and docker export a created (never started) container's.
if [ "${builder[0]}" = buildah ]; then
    container=$("${builder[@]}" from "$tag")
    mountpoint=$("${builder[@]}" mount "$container")
else
    container=$("${builder[@]}" create "$tag")
    mountpoint="$context/exported"
    mkdir -p "$mountpoint"
    "${builder[@]}" export "$container" | tar -x -C "$mountpoint"
fi
status=0
for shell in bin/sh bin/bash usr/bin/sh; do
    if [ -e "$mountpoint/$shell" ]; then echo "container: the image holds a shell ($shell)" >&2; status=1; fi
done
[ -x "$mountpoint/usr/local/bin/mrtd" ] || { echo "container: no /usr/local/bin/mrtd" >&2; status=1; }
[ -e "$mountpoint/lib64/ld-linux-x86-64.so.2" ] || [ -e "$mountpoint/lib/ld-linux-aarch64.so.1" ] \
    || { echo "container: no dynamic loader" >&2; status=1; }
size=$(du -sm "$mountpoint" | cut -f1)
if [ "${builder[0]}" = buildah ]; then "${builder[@]}" umount "$container" >/dev/null; fi
"${builder[@]}" rm "$container" >/dev/null
[ "$status" -eq 0 ] || exit 1
saved=""
if [ -n "$archive" ]; then
    rm -f "$archive"
    save "$archive"
    [ -s "$archive" ] || { echo "container: no OCI archive written to $archive" >&2; exit 1; }
    # The image's blobs are the same each time; the archive's own entries carry the time they
    # were written, so they are packed again in a fixed order and time.
    if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
        mkdir "$context/layout"
        tar -xf "$archive" -C "$context/layout"
        tar -C "$context/layout" --owner=0 --group=0 --numeric-owner --sort=name \
            --mtime="@$SOURCE_DATE_EPOCH" -cf "$archive" .
    fi
    saved=", saved as $archive"
fi
echo "ok: image $tag built (${size} MB): user 65532, entrypoint /usr/local/bin/mrtd, no shell$saved"
