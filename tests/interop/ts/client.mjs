// Drives `mrtd serve` with the official MCP TypeScript SDK (npm @modelcontextprotocol/sdk).
//
// Usage: node client.mjs (--stdio MRTD_BIN DATA_DIR | --url URL) --image PATH --number DOC_NUMBER
//
// Lists the tools (the seven, in order), scans the image sent as base64 (kept for an hour),
// checks the status and the document number in structuredContent, then fetches the kept
// scan with get_scan. The server is started with the image's folder as its image directory:
// the image must be listed as a resource (mrtd://images/NAME), read back whole, and scanned
// by that URI as image_path. Prints one line per check and exits non-zero on the first failure.

import { readFileSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { parseArgs } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const EXPECTED_TOOLS = [
  "scan_document",
  "get_scan",
  "list_scans",
  "delete_scan",
  "parse_mrz",
  "check_document",
  "verify_chip",
];

function check(condition, what, detail) {
  if (!condition) {
    throw new Error(`${what}${detail === undefined ? "" : `: ${JSON.stringify(detail)}`}`);
  }
  console.log(`ok   ${what}`);
}

function transportFor(options, rest, image) {
  if (options.url) {
    return new StreamableHTTPClientTransport(new URL(options.url));
  }
  const [binary, dataDir] = rest;
  if (!binary || !dataDir) {
    throw new Error("--stdio needs MRTD_BIN and DATA_DIR");
  }
  return new StdioClientTransport({
    command: binary,
    args: ["serve", "--stdio", "--data-dir", dataDir, "--image-dir", dirname(resolve(image))],
    env: { ...process.env, RUST_LOG: "warn", XDG_CONFIG_HOME: dataDir },
    stderr: "inherit",
  });
}

async function exercise(client, image, number) {
  const listing = await client.listTools();
  const names = listing.tools.map((tool) => tool.name);
  check(JSON.stringify(names) === JSON.stringify(EXPECTED_TOOLS), "tools/list names the seven tools in order", names);

  const encoded = readFileSync(image).toString("base64");
  const scanned = await client.callTool(
    { name: "scan_document", arguments: { image_base64: encoded, retain_hours: 1 } },
    undefined,
    { timeout: 120_000 },
  );
  check(!scanned.isError, "scan_document succeeds", scanned.content);
  const structured = scanned.structuredContent ?? {};
  check(structured.status === "read", "scan_document status is read", structured.status);
  check(structured.fields?.document_number === number, `scan_document reads the document number ${number}`, structured.fields?.document_number);
  const scanId = structured.scan_id;
  check(typeof scanId === "string" && scanId.length > 0, "scan_document returns a scan_id", scanId);

  const fetched = await client.callTool({ name: "get_scan", arguments: { scan_id: scanId } });
  check(!fetched.isError, "get_scan succeeds", fetched.content);
  const kept = fetched.structuredContent ?? {};
  check(kept.scan_id === scanId, "get_scan returns the same scan", kept.scan_id);
  check(kept.fields?.document_number === number, `get_scan has the document number ${number}`, kept.fields?.document_number);

  // The image directory: the photo is a resource a model can find, read and scan by URI.
  const uri = `mrtd://images/${basename(image)}`;
  const listed = await client.listResources();
  const uris = listed.resources.map((resource) => resource.uri);
  check(uris.includes(uri), `resources/list names ${uri}`, uris);
  const read = await client.readResource({ uri });
  const blob = read.contents[0]?.blob ?? "";
  check(Buffer.from(blob, "base64").length === statSync(image).size, "resources/read returns the whole photo", blob.length);
  const byUri = await client.callTool({ name: "scan_document", arguments: { image_path: uri } }, undefined, { timeout: 120_000 });
  check(!byUri.isError && byUri.structuredContent?.fields?.document_number === number,
    "scan_document reads the resource URI as image_path", byUri.content);
}

async function main() {
  const { values, positionals } = parseArgs({
    options: {
      stdio: { type: "boolean" },
      url: { type: "string" },
      image: { type: "string" },
      number: { type: "string" },
    },
    allowPositionals: true,
  });
  if (Boolean(values.stdio) === Boolean(values.url) || !values.image || !values.number) {
    throw new Error("usage: client.mjs (--stdio MRTD_BIN DATA_DIR | --url URL) --image PATH --number NUMBER");
  }
  const client = new Client({ name: "mrtd-interop-ts", version: "1.0.0" });
  const transport = transportFor(values, positionals, values.image);
  // The client tells the transport the version the handshake settled on; keep a copy to print.
  let negotiated = "unknown";
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    negotiated = version;
    setVersion?.(version);
  };
  await client.connect(transport);
  try {
    console.log(`     protocol version ${negotiated}`);
    await exercise(client, values.image, values.number);
  } finally {
    await client.close();
  }
}

main().catch((error) => {
  console.error(`FAIL ${error?.message ?? error}`);
  process.exit(1);
});
