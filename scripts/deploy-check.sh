#!/usr/bin/env bash
# Checks the deployment files in deploy/ as far as this machine can without running them:
#
#   - deploy/systemd/mrtd.service: `systemd-analyze verify` (with ExecStart pointed at the
#     binary under test), any warning fails;
#   - deploy/kubernetes/*.yaml: `kubernetes-validate --strict` against the Kubernetes schemas;
#   - every MRTD_* variable the unit, the manifests and the Containerfile set is one that
#     `mrtd serve` reads (`mrtd serve --help` lists them);
#   - deploy/container/Containerfile: built offline and inspected (scripts/container.sh), then
#     removed;
#   - the release files (scripts/package.sh): the Debian package, the archive, the SBOM and the
#     container image as an OCI archive, made from the binary under test, unpacked and checked;
#     the package then installed with dpkg (which needs root), run, its unit verified, and
#     purged.
#
#   scripts/deploy-check.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
binary="$(realpath "${1:?usage: scripts/deploy-check.sh BINARY}")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

sed "s|^ExecStart=/usr/local/bin/mrtd|ExecStart=$binary|" deploy/systemd/mrtd.service > "$work/mrtd.service"
if ! systemd-analyze verify "$work/mrtd.service" >"$work/systemd.log" 2>&1 || [ -s "$work/systemd.log" ]; then
    echo "deploy: systemd-analyze verify deploy/systemd/mrtd.service:" >&2
    cat "$work/systemd.log" >&2
    status=1
else
    echo "ok: deploy/systemd/mrtd.service verifies"
fi

if kubernetes-validate --strict --quiet deploy/kubernetes/*.yaml; then
    echo "ok: deploy/kubernetes/*.yaml validate (strict)"
else
    echo "deploy: kubernetes-validate --strict failed" >&2
    status=1
fi

"$binary" serve --help > "$work/help.txt"
for variable in $(grep -ohE 'MRTD_[A-Z_]+' deploy/systemd/mrtd.service deploy/kubernetes/*.yaml deploy/container/Containerfile | sort -u); do
    if ! grep -qE "\[env: $variable[]=]" "$work/help.txt"; then
        echo "deploy: $variable is set in deploy/ but mrtd serve does not read it" >&2
        status=1
    fi
done

tag="mrtd-ci:$$"
if scripts/container.sh "$binary" "$tag"; then
    buildah --storage-driver vfs rmi "$tag" >/dev/null 2>&1 || podman rmi "$tag" >/dev/null 2>&1 ||
        docker rmi "$tag" >/dev/null 2>&1 || true
else
    status=1
fi
packaged=1
if ! scripts/package.sh "$binary" "$work/dist"; then
    status=1
    packaged=0
fi
# The release's image stays in the builder's storage under mrtd:VERSION; CI drops it.
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
buildah --storage-driver vfs rmi "mrtd:$version" >/dev/null 2>&1 || podman rmi "mrtd:$version" >/dev/null 2>&1 ||
    docker rmi "mrtd:$version" >/dev/null 2>&1 || true
if [ "$packaged" -ne 1 ]; then
    :
elif [ "$(id -u)" -ne 0 ]; then
    echo "deploy: the Debian package was not installed: that needs root" >&2
    status=1
elif dpkg-query -W -f='${Status}' mrtd 2>/dev/null | grep -q 'ok installed'; then
    echo "deploy: the Debian package was not installed: a package named mrtd is installed already" >&2
    status=1
else
    # Installed as a user would, run, its unit verified where it landed, and removed.
    deb=$(ls "$work"/dist/mrtd_*.deb)
    if dpkg -i "$deb" >"$work/dpkg.log" 2>&1 && [ "$(/usr/bin/mrtd --version)" = "$("$binary" --version)" ] &&
        systemd-analyze verify /lib/systemd/system/mrtd.service >>"$work/dpkg.log" 2>&1; then
        echo "ok: $(basename "$deb") installs, runs and its unit verifies"
    else
        echo "deploy: installing $(basename "$deb"):" >&2
        cat "$work/dpkg.log" >&2
        status=1
    fi
    dpkg -P mrtd >/dev/null 2>&1 || { echo "deploy: dpkg -P mrtd failed" >&2; status=1; }
fi
exit "$status"
