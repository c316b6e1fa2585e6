"""Drives `mrtd serve` with the official MCP Python SDK (PyPI package `mcp`).

Usage: client.py (--stdio MRTD_BIN DATA_DIR | --url URL) --image PATH --number DOC_NUMBER
                 [--mode auto|legacy|2026-07-28]

Lists the tools (the seven, in order), scans the image sent as base64 (kept for an hour), checks the status
and the document number in structuredContent, then fetches the kept scan with get_scan. The server
is started with the image's folder as its image directory: the image must be listed as a resource
(mrtd://images/NAME), read back whole, and scanned by that URI as image_path.
Prints one line per check and exits non-zero on the first failure.
"""

import argparse
import asyncio
import base64
import os
import sys

from mcp import Client, StdioServerParameters

EXPECTED_TOOLS = [
    "scan_document",
    "get_scan",
    "list_scans",
    "delete_scan",
    "parse_mrz",
    "check_document",
    "verify_chip",
]


class CheckFailed(Exception):
    """An interop check did not hold."""


def check(condition, what, detail=""):
    if not condition:
        raise CheckFailed(f"{what}{': ' + str(detail) if detail else ''}")
    print(f"ok   {what}")


def leaves(error):
    """The exceptions inside (nested) exception groups, which anyio task groups raise."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from leaves(inner)
    else:
        yield error


async def exercise(server, mode, image, number):
    async with Client(server, mode=mode, read_timeout_seconds=120) as client:
        print(f"     protocol version {client.protocol_version}")
        listing = await client.list_tools()
        names = [tool.name for tool in listing.tools]
        check(names == EXPECTED_TOOLS, "tools/list names the seven tools in order", names)

        with open(image, "rb") as handle:
            encoded = base64.b64encode(handle.read()).decode("ascii")
        scanned = await client.call_tool("scan_document", {"image_base64": encoded, "retain_hours": 1})
        check(not scanned.is_error, "scan_document succeeds", scanned.content)
        structured = scanned.structured_content or {}
        check(structured.get("status") == "read", "scan_document status is read", structured.get("status"))
        fields = structured.get("fields") or {}
        check(fields.get("document_number") == number, f"scan_document reads the document number {number}",
              fields.get("document_number"))
        scan_id = structured.get("scan_id")
        check(isinstance(scan_id, str) and scan_id, "scan_document returns a scan_id", scan_id)

        fetched = await client.call_tool("get_scan", {"scan_id": scan_id})
        check(not fetched.is_error, "get_scan succeeds", fetched.content)
        kept = fetched.structured_content or {}
        kept_fields = kept.get("fields") or {}
        check(kept.get("scan_id") == scan_id, "get_scan returns the same scan", kept.get("scan_id"))
        check(kept_fields.get("document_number") == number, f"get_scan has the document number {number}",
              kept_fields.get("document_number"))

        # The image directory: the photo is a resource a model can find, read and scan by URI.
        name = os.path.basename(image)
        listed = await client.list_resources()
        uris = [str(resource.uri) for resource in listed.resources]
        uri = f"mrtd://images/{name}"
        check(uri in uris, f"resources/list names {uri}", uris)
        read = await client.read_resource(uri)
        blob = getattr(read.contents[0], "blob", None) or ""
        check(len(base64.b64decode(blob)) == os.path.getsize(image), "resources/read returns the whole photo",
              len(blob))
        by_uri = await client.call_tool("scan_document", {"image_path": uri})
        by_uri_fields = (by_uri.structured_content or {}).get("fields") or {}
        check(not by_uri.is_error and by_uri_fields.get("document_number") == number,
              "scan_document reads the resource URI as image_path", by_uri.content)


def main():
    parser = argparse.ArgumentParser()
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--stdio", nargs=2, metavar=("MRTD_BIN", "DATA_DIR"))
    target.add_argument("--url")
    parser.add_argument("--image", required=True)
    parser.add_argument("--number", required=True)
    parser.add_argument("--mode", default="auto")
    args = parser.parse_args()
    if args.stdio:
        binary, data_dir = args.stdio
        server = StdioServerParameters(
            command=binary,
            args=["serve", "--stdio", "--data-dir", data_dir, "--image-dir", os.path.dirname(os.path.abspath(args.image))],
            env={"RUST_LOG": "warn", "XDG_CONFIG_HOME": data_dir},
        )
    else:
        server = args.url
    asyncio.run(exercise(server, args.mode, args.image, args.number))


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except BaseException as error:  # An SDK exception is a failed interop check too.
        for leaf in leaves(error):
            name = "" if isinstance(leaf, CheckFailed) else f"{type(leaf).__name__}: "
            print(f"FAIL {name}{leaf}", file=sys.stderr)
        sys.exit(1)
