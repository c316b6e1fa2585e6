#!/usr/bin/env bash
# Checks the dependency rules the architecture draws (ARCHITECTURE.md), with `cargo tree`:
#
#   - the engines (mrtd-mrz, mrtd-engine) and chip verification (mrtd-chip) are synchronous
#     and know no MRZ reader, store or transport: no tokio, and mrtd-chip no engine or store;
#   - the service and the MCP handler know no HTTP stack: no axum, hyper or JWT library;
#   - the MCP handler reaches the store and the MRZ core only through the service: neither
#     mrtd-store nor mrtd-mrz among its own dependencies;
#   - the web routes take their schemas and docs from the service, not from the MCP crate;
#   - the served binary links no development tool: no font rasteriser (ab_glyph);
#   - the HTTP front names no tool: no tool name in crates/server/src;
#   - the MRZ core alone decides validity and the audit trail: the engine neither sets a
#     reading's `valid` nor writes a correction.
set -euo pipefail
cd "$(dirname "$0")/.."

failed=0
refuse() { # crate, dependency, reason
    # A workspace crate outside the tree prints nothing and exits 0: look at the output.
    if cargo tree -p "$1" -e normal -i "$2" 2>/dev/null | grep -q .; then
        echo "layering: $1 depends on $2 ($3)" >&2
        failed=1
    fi
}

refuse_direct() { # crate, dependency, reason: the dependency may only come through another
    if cargo tree -p "$1" -e normal --depth 1 --prefix none 2>/dev/null | grep -q "^$2 v"; then
        echo "layering: $1 depends on $2 directly ($3)" >&2
        failed=1
    fi
}

for crate in mrtd-mrz mrtd-engine mrtd-chip; do
    refuse "$crate" tokio "the engines must stay synchronous"
done
for below in mrtd-engine mrtd-store; do
    refuse mrtd-chip "$below" "chip verification needs only the MRZ parser"
done
for crate in mrtd-service mrtd-mcp; do
    for http in axum hyper jsonwebtoken; do
        refuse "$crate" "$http" "the service and the MCP handler know no transport"
    done
done
for below in mrtd-store mrtd-mrz; do
    refuse_direct mrtd-mcp "$below" "the MCP handler reaches kept scans and the MRZ core through mrtd-service, the only door"
done
refuse mrtd-web mrtd-mcp "the web routes take their schemas and docs from mrtd-service"
refuse mrtd ab_glyph "the synthetic-document renderer is a development tool"

tools=$(sed -n 's/^ *name: "\([a-z_]*\)",$/\1/p' crates/mcp/src/tools/mod.rs)
[ -n "$tools" ] || { echo "layering: no tool names found in crates/mcp/src/tools/mod.rs" >&2; exit 1; }
for tool in $tools; do
    if grep -rn "\"$tool\"" crates/server/src >/dev/null; then
        echo "layering: the HTTP front names the tool $tool:" >&2
        grep -rn "\"$tool\"" crates/server/src >&2
        failed=1
    fi
done

# A reading's `valid` assigned, or a correction made, anywhere in the engine's sources (its
# tests may spell out the corrections they expect).
if grep -rnE --exclude='tests.rs' --exclude-dir=tests '\.valid *= |corrections\.(push|insert|extend)|Correction \{' crates/engine/src; then
    echo "layering: the engine decides validity or writes a correction; the MRZ core does (mrtd_mrz::Seen, Reading::prove, Reading::note_choices)" >&2
    failed=1
fi

if [ "$failed" -ne 0 ]; then
    exit 1
fi
echo "ok: engines and chip verification without tokio; service and MCP handler without an HTTP stack; MCP handler without the store or the MRZ core; web without the MCP crate; no renderer in mrtd; no tool named in the HTTP front; no validity or correction decided in the engine"
