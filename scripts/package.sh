#!/usr/bin/env bash
# Makes mrtd's release files from a built binary, and checks what it made:
#
#   - mrtd_VERSION_ARCH.deb: /usr/bin/mrtd, the systemd unit (deploy/systemd/mrtd.service,
#     not enabled or started on install) reading /etc/mrtd/config.toml (a conffile, every
#     setting commented out), the licences; Depends from the glibc symbol versions the binary
#     uses;
#   - mrtd-VERSION-TRIPLE.tar.gz: the binary, the unit, README, SECURITY.md and the licences;
#   - mrtd-VERSION.cdx.json: a CycloneDX 1.5 SBOM of every crate the binary links (from
#     `cargo tree` over Cargo.lock, build scripts and proc-macros left out);
#   - mrtd-VERSION-oci.tar: the container image (scripts/container.sh) as an OCI archive,
#     tagged mrtd:VERSION (`podman load -i`, or `skopeo copy oci-archive:FILE ...` to push it);
#     it needs buildah, podman or docker (MRTD_NO_IMAGE=1 makes the release without it);
#   - SHA256SUMS over them.
#
# The files are reproducible: every time stamp in them is SOURCE_DATE_EPOCH (default: the last
# commit's time), owners are root, entries sorted; the script makes them twice and compares.
#
#   scripts/package.sh [BINARY] [OUT_DIR]    default: target/release/mrtd, target/dist
#
# Build the binary first: `cargo build --release --locked -p mrtd`. Needs dpkg-deb (Debian and
# Ubuntu have it), objdump and strip (binutils), jq, and cargo for the SBOM; MRTD_DEB_MAINTAINER sets the package's
# Maintainer field (default: git's user.name and user.email). Installing: `sudo apt install ./target/dist/mrtd_*.deb`, then
# `sudo systemctl enable --now mrtd`.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-target/release/mrtd}"
out="${2:-target/dist}"
[ -x "$binary" ] || { echo "package: no binary at $binary (cargo build --release --locked -p mrtd)" >&2; exit 1; }
command -v dpkg-deb >/dev/null || { echo "package: needs dpkg-deb (Debian's dpkg)" >&2; exit 1; }
command -v jq >/dev/null || { echo "package: needs jq" >&2; exit 1; }
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
[ -n "$version" ] || { echo "package: no version in Cargo.toml" >&2; exit 1; }
reported=$("$binary" --version)
[ "$reported" = "mrtd $version" ] || { echo "package: $binary says '$reported', Cargo.toml $version" >&2; exit 1; }
arch=$(dpkg --print-architecture)
triple=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p' || true)
triple="${triple:-$(uname -m)-linux}"
# Whoever builds the package maintains it: MRTD_DEB_MAINTAINER, or git's identity, or the user
# at this host.
if [ -z "${MRTD_DEB_MAINTAINER:-}" ]; then
    name=$(git config user.name || id -un)
    email=$(git config user.email || echo "$(id -un)@$(hostname)")
    MRTD_DEB_MAINTAINER="$name <$email>"
fi
# The newest glibc symbol version the binary asks for is the oldest libc6 it runs on.
glibc=$(objdump -T "$binary" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)
description=$(sed -n 's/^description = "\(.*\)"/\1/p' crates/cli/Cargo.toml)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The crates the binary links, as CycloneDX components.
cargo tree -p mrtd -e normal,no-proc-macro --prefix none --format '{p}' --locked --offline \
    | sed 's/ (.*)$//' | sort -u > "$work/crates.txt"
crates="$work/crates.txt"
[ -s "$crates" ] || { echo "package: cargo tree listed no crates" >&2; exit 1; }

# Makes the release files in the folder $1, from the work folder $2.
make_release() {
    local out="$1" work="$2"
    mkdir -p "$out" "$work"

    # --- the Debian package --------------------------------------------------------------------
    root="$work/deb"
    install -D -m 0755 "$binary" "$root/usr/bin/mrtd"
    strip --strip-debug "$root/usr/bin/mrtd" 2>/dev/null || true
    install -d "$root/lib/systemd/system"
    sed -e 's|/usr/local/bin/mrtd|/usr/bin/mrtd|g' \
        -e 's|^Environment=MRTD_LOG_FORMAT=json$|&\nEnvironment=MRTD_CONFIG=/etc/mrtd/config.toml|' \
        deploy/systemd/mrtd.service > "$root/lib/systemd/system/mrtd.service"
    chmod 0644 "$root/lib/systemd/system/mrtd.service"
    # The settings file: every key a serve flag, commented out; the unit's Environment lines
    # (listen, data_dir, log_format) come before it.
    install -d "$root/etc/mrtd"
    {
        echo "# mrtd serve's settings: the keys are its flags' names with underscores"
        echo "# (\`mrtd serve --help\` says what each does). The unit's Environment= lines, and"
        echo "# a drop-in from \`systemctl edit mrtd\`, come before this file."
        echo "#"
        echo "# auth = \"api-key\"                 # then: mrtd keys create NAME --data-dir /var/lib/mrtd"
        echo "# csca_dir = \"/etc/mrtd/csca\"      # trusted CSCA certificates for chip verification"
        echo "# database_url = \"postgres://...\"  # for replicas behind a load balancer"
        echo "# max_concurrent_scans = 2"
        echo "# max_decoded_megapixels = 80"
    } > "$root/etc/mrtd/config.toml"
    chmod 0644 "$root/etc/mrtd/config.toml"
    doc="$root/usr/share/doc/mrtd"
    install -d "$doc"
    {
        echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
        echo "Upstream-Name: mrtd"
        echo
        echo "Files: *"
        echo "License: MIT or Apache-2.0"
        echo
        echo "License: MIT"
        sed 's/^$/./; s/^/ /' LICENSE-MIT
        echo
        echo "License: Apache-2.0"
        echo " On Debian systems the full text is in /usr/share/common-licenses/Apache-2.0."
    } > "$doc/copyright"
    install -m 0644 README.md SECURITY.md "$doc/"
    install -d "$root/DEBIAN"
    echo /etc/mrtd/config.toml > "$root/DEBIAN/conffiles"
    # As dpkg-gencontrol counts it: each file's KiB rounded up, one per directory and link;
    # `du` would count the file system's blocks, which differ from one folder to the next.
    installed_kib=$(find "$root" -mindepth 1 -path "$root/DEBIAN" -prune -o -printf '%y %s\n' |
        awk '$1 == "f" { kib += int(($2 + 1023) / 1024); next } { kib += 1 } END { print kib }')
    cat > "$root/DEBIAN/control" <<EOF
Package: mrtd
Version: $version
Architecture: $arch
Maintainer: $MRTD_DEB_MAINTAINER
Installed-Size: $installed_kib
Depends: libc6 (>= $glibc), libgcc-s1
Section: net
Priority: optional
Description: $description
 One program that reads the machine readable zone of passports, ID cards
 and visas (ICAO 9303) from photos, scans and typed lines, offline, and
 serves it over MCP (stdio and Streamable HTTP), a REST API, a web page
 and a command line. The unit mrtd.service is installed but not enabled.
EOF
    # The unit is the package's; systemd is told of it (and of its removal), nothing is started.
    for script in postinst postrm; do
        cat > "$root/DEBIAN/$script" <<'EOF'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload >/dev/null 2>&1 || true
fi
EOF
        chmod 0755 "$root/DEBIAN/$script"
    done
    deb="$out/mrtd_${version}_${arch}.deb"
    find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
    dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null

    # --- the archive -----------------------------------------------------------------------------
    name="mrtd-$version-$triple"
    tree="$work/$name"
    install -D -m 0755 "$root/usr/bin/mrtd" "$tree/mrtd"
    install -m 0644 deploy/systemd/mrtd.service README.md SECURITY.md LICENSE-MIT LICENSE-APACHE "$tree/"
    tar -C "$work" --owner=0 --group=0 --numeric-owner --sort=name --mtime="@$SOURCE_DATE_EPOCH" \
        -cf - "$name" | gzip -n -9 > "$out/$name.tar.gz"

    # --- the SBOM --------------------------------------------------------------------------------
    local stamp serial
    stamp=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
    serial=$(sha256sum "$crates" | cut -c1-32 | sed -E 's/(.{8})(.{4})(.{4})(.{4})(.{12})/\1-\2-\3-\4-\5/')
    jq -R -s --arg version "$version" --arg stamp "$stamp" --arg serial "urn:uuid:$serial" '
        split("\n") | map(select(length > 0) | split(" v") | {name: .[0], version: .[1]}) as $crates
        | {
            bomFormat: "CycloneDX", specVersion: "1.5", serialNumber: $serial, version: 1,
            metadata: {
              timestamp: $stamp,
              component: {type: "application", name: "mrtd", version: $version,
                          "bom-ref": "pkg:cargo/mrtd@\($version)", purl: "pkg:cargo/mrtd@\($version)"}
            },
            components: [$crates[] | select(.name != "mrtd") | {
              type: "library", name, version,
              "bom-ref": "pkg:cargo/\(.name)@\(.version)", purl: "pkg:cargo/\(.name)@\(.version)"
            }]
          }' "$crates" > "$out/mrtd-$version.cdx.json"

    # --- the container image -----------------------------------------------------------------
    local made=("$(basename "$deb")" "$name.tar.gz" "mrtd-$version.cdx.json")
    if [ "${MRTD_NO_IMAGE:-0}" != 1 ]; then
        scripts/container.sh "$binary" "mrtd:$version" "$out/mrtd-$version-oci.tar" >/dev/null
        made+=("mrtd-$version-oci.tar")
    fi

    (cd "$out" && sha256sum "${made[@]}" > SHA256SUMS)
}

make_release "$out" "$work/make"
# Made again from the same binary, the files are the same byte for byte.
make_release "$work/again" "$work/make-again"
if ! cmp -s "$out/SHA256SUMS" "$work/again/SHA256SUMS"; then
    echo "package: the release files are not reproducible:" >&2
    diff "$out/SHA256SUMS" "$work/again/SHA256SUMS" >&2 || true
    exit 1
fi
deb="$out/mrtd_${version}_${arch}.deb"
name="mrtd-$version-$triple"


# --- what was made, checked --------------------------------------------------------------------
check="$work/check"
mkdir -p "$check"
dpkg-deb -x "$deb" "$check"
failures=()
[ "$(dpkg-deb -f "$deb" Package)" = mrtd ] || failures+=("Package field")
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || failures+=("Version field")
for path in usr/bin/mrtd lib/systemd/system/mrtd.service etc/mrtd/config.toml usr/share/doc/mrtd/copyright; do
    [ -f "$check/$path" ] || failures+=("no /$path in the package")
done
[ "$("$check/usr/bin/mrtd" --version)" = "mrtd $version" ] || failures+=("the packaged binary does not run")
grep -qx 'Environment=MRTD_CONFIG=/etc/mrtd/config.toml' "$check/lib/systemd/system/mrtd.service" ||
    failures+=("the unit does not read /etc/mrtd/config.toml")
# The packaged settings file is one `mrtd serve` takes: it starts with it, and is stopped.
timeout 5 "$check/usr/bin/mrtd" serve --config "$check/etc/mrtd/config.toml" --listen 127.0.0.1:0 \
    --data-dir "$work/state" 2>"$work/serve.log" && true
grep -q 'serving MCP at' "$work/serve.log" || failures+=("mrtd serve refuses the packaged config.toml: $(head -n 3 "$work/serve.log")")
grep -q '^ExecStart=/usr/bin/mrtd serve$' "$check/lib/systemd/system/mrtd.service" ||
    failures+=("the unit does not start /usr/bin/mrtd")
# Verified where it was unpacked: the unit pointed at the binary beside it.
if command -v systemd-analyze >/dev/null; then
    sed "s|^ExecStart=/usr/bin/mrtd|ExecStart=$check/usr/bin/mrtd|" \
        "$check/lib/systemd/system/mrtd.service" > "$work/mrtd.service"
    if ! systemd-analyze verify "$work/mrtd.service" >"$work/verify.log" 2>&1; then
        failures+=("systemd-analyze verify: $(cat "$work/verify.log")")
    fi
fi
tar -tzf "$out/$name.tar.gz" > "$work/archive.txt"
grep -qx "$name/mrtd" "$work/archive.txt" || failures+=("no binary in the archive")
(cd "$out" && sha256sum --quiet -c SHA256SUMS) || failures+=("SHA256SUMS")
# The SBOM names every linked crate at the version Cargo.lock pins, and the lock's every
# package it names exists.
sbom="$out/mrtd-$version.cdx.json"
jq -e '.bomFormat == "CycloneDX" and (.components | length) > 100' "$sbom" >/dev/null ||
    failures+=("the SBOM is not a CycloneDX document listing the crates")
jq -r '.components[] | "\(.name) \(.version)"' "$sbom" | sort > "$work/sbom.txt"
awk '/^name = /{gsub(/"/, "", $3); name=$3} /^version = /{gsub(/"/, "", $3); print name, $3}' Cargo.lock \
    | sort -u > "$work/lock.txt"
missing=$(comm -23 "$work/sbom.txt" "$work/lock.txt")
[ -z "$missing" ] || failures+=("SBOM components not in Cargo.lock: $missing")
[ "$(wc -l < "$work/sbom.txt")" -eq "$(grep -vc '^mrtd v' "$crates")" ] ||
    failures+=("the SBOM does not list every linked crate")
image="$out/mrtd-$version-oci.tar"
if [ "${MRTD_NO_IMAGE:-0}" != 1 ]; then
    # An OCI image layout whose index names mrtd:VERSION, and whose configuration runs the
    # binary as the image's own user.
    mkdir -p "$work/oci"
    tar -xf "$image" -C "$work/oci"
    grep -q '"imageLayoutVersion"' "$work/oci/oci-layout" || failures+=("the image archive has no oci-layout")
    # buildah writes the tag as given, podman with localhost/, docker the version alone.
    jq -e --arg ref "mrtd:$version" --arg version "$version" \
        '[.manifests[].annotations["org.opencontainers.image.ref.name"]] | any(. == $ref or . == ("localhost/" + $ref) or . == $version)' \
        "$work/oci/index.json" >/dev/null || failures+=("the image archive's index does not name mrtd:$version")
    manifest=$(jq -r '.manifests[0].digest' "$work/oci/index.json" | sed 's/^sha256://')
    config=$(jq -r '.config.digest' "$work/oci/blobs/sha256/$manifest" | sed 's/^sha256://')
    jq -e '.config.User == "65532:65532" and .config.Entrypoint == ["/usr/local/bin/mrtd"]' \
        "$work/oci/blobs/sha256/$config" >/dev/null || failures+=("the image's configuration is not mrtd's")
fi
if [ ${#failures[@]} -gt 0 ]; then
    printf 'package: %s\n' "${failures[@]}" >&2
    exit 1
fi
if [ "${MRTD_NO_IMAGE:-0}" != 1 ]; then made_image=", $image ($(du -h "$image" | cut -f1))"; else made_image=" (no image: MRTD_NO_IMAGE)"; fi
echo "ok: $deb ($(du -h "$deb" | cut -f1)), $out/$name.tar.gz, $sbom ($(wc -l < "$work/sbom.txt") crates)$made_image, $out/SHA256SUMS; made twice, the same"
