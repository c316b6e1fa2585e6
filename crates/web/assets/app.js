// The mrtd page: sends a photo or typed lines to the REST API and shows the result.
// No framework and no build step; everything here runs as written.
"use strict";

(function () {
  const KEY_STORAGE = "mrtd.apiKey";
  const FIELD_LABELS = [
    ["document_code", "Document code"],
    ["issuer", "Issuer"],
    ["document_number", "Document number"],
    ["surname", "Surname"],
    ["given_names", "Given names"],
    ["nationality", "Nationality"],
    ["birth_date", "Date of birth"],
    ["sex", "Sex"],
    ["expiry_date", "Date of expiry"],
    ["optional_data", "Optional data"],
    ["optional_data_2", "Optional data 2"],
  ];
  const CHECK_LABELS = {
    document_number: "Document number",
    birth_date: "Date of birth",
    expiry_date: "Date of expiry",
    optional_data: "Optional data",
    composite: "Composite",
  };

  const $ = (id) => document.getElementById(id);
  let photoUrl = null;

  /** Headers for an API call, with the API key when one was given. */
  function apiHeaders(extra) {
    const headers = Object.assign({ Accept: "application/json" }, extra || {});
    const key = sessionStorage.getItem(KEY_STORAGE);
    if (key) headers["X-Api-Key"] = key;
    return headers;
  }

  /** Turns a REST response into the result object, or throws with the server's message. */
  async function readResponse(response) {
    let body = null;
    try {
      body = await response.json();
    } catch (_) {
      body = null;
    }
    if (!response.ok) {
      const message = body && body.error && body.error.message
        ? body.error.message
        : "The server answered " + response.status + ".";
      const error = new Error(message);
      error.status = response.status;
      throw error;
    }
    return body;
  }

  async function scanFile(file, retainHours, referenceDate) {
    const form = new FormData();
    form.append("image", file, file.name || "photo");
    if (retainHours) form.append("retain_hours", String(retainHours));
    if (referenceDate) form.append("reference_date", referenceDate);
    const response = await fetch("/v1/scans", { method: "POST", headers: apiHeaders(), body: form });
    return readResponse(response);
  }

  async function scanBase64(input) {
    const response = await fetch("/v1/scans", {
      method: "POST",
      headers: apiHeaders({ "Content-Type": "application/json" }),
      body: JSON.stringify(input),
    });
    return readResponse(response);
  }

  async function parseLines(input) {
    const response = await fetch("/v1/parse", {
      method: "POST",
      headers: apiHeaders({ "Content-Type": "application/json" }),
      body: JSON.stringify(input),
    });
    return readResponse(response);
  }

  function setStatus(text, busy) {
    const status = $("status");
    status.textContent = text;
    $("result").setAttribute("aria-busy", busy ? "true" : "false");
  }

  function clear(element) {
    while (element.firstChild) element.removeChild(element.firstChild);
  }

  function item(list, text, className) {
    const li = document.createElement("li");
    li.textContent = text;
    if (className) li.className = className;
    list.appendChild(li);
  }

  function summary(result) {
    const format = result.format || "unknown";
    if (result.status === "read") {
      const derived = result.derived || {};
      const expiry = derived.expired === true ? " The document expired on " + result.fields.expiry_date + "."
        : derived.expired === false ? " The document is unexpired." : "";
      return "Read a " + format + " document: " +
        (result.valid ? "every check digit verified." : "not every check digit verified.") + expiry +
        (result.scan_id ? " Kept as scan " + result.scan_id + " until " + result.expires_at + "." : "");
    }
    if (result.status === "partial") return "Found a " + format + " zone but could not read it with confidence.";
    return "No machine readable zone was found.";
  }

  function showFields(fields) {
    const list = $("fields");
    clear(list);
    if (!fields) {
      const dt = document.createElement("dt");
      dt.textContent = "Fields";
      const dd = document.createElement("dd");
      dd.textContent = "none were read";
      list.appendChild(dt);
      list.appendChild(dd);
      return;
    }
    for (const [key, label] of FIELD_LABELS) {
      if (fields[key] === undefined || fields[key] === null || fields[key] === "") continue;
      const dt = document.createElement("dt");
      dt.textContent = label;
      const dd = document.createElement("dd");
      dd.textContent = String(fields[key]);
      dd.dataset.field = key;
      list.appendChild(dt);
      list.appendChild(dd);
    }
  }

  function showChecks(checks) {
    const body = $("checks").tBodies[0];
    clear(body);
    for (const check of checks || []) {
      const row = body.insertRow();
      const name = document.createElement("th");
      name.scope = "row";
      name.textContent = CHECK_LABELS[check.name] || check.name;
      row.appendChild(name);
      const verdict = row.insertCell();
      verdict.textContent = check.status === "verified" ? "verified"
        : check.status === "refuted" ? "refuted (printed " + check.printed + ", computed " + check.computed + ")"
        : "not printed";
      verdict.className = "verdict " + check.status;
    }
  }

  function showList(id, entries, describe, empty) {
    const list = $(id);
    clear(list);
    if (!entries || entries.length === 0) {
      item(list, empty, "none");
      return;
    }
    for (const entry of entries) item(list, describe(entry));
  }

  /** Draws the MRZ quadrilateral over the photo, in the photo's own pixel space. */
  function drawRegion(result) {
    const svg = $("overlay");
    clear(svg);
    const region = result.region;
    const image = result.image;
    const figure = $("preview");
    if (!photoUrl) {
      figure.hidden = true;
      return;
    }
    figure.hidden = false;
    if (!Array.isArray(region) || region.length !== 4 || !image || !image.width) {
      svg.removeAttribute("data-drawn");
      $("overlay-caption").textContent = "No machine readable zone was located on this photo.";
      return;
    }
    svg.setAttribute("viewBox", "0 0 " + image.width + " " + image.height);
    svg.setAttribute("preserveAspectRatio", "none");
    const polygon = document.createElementNS("http://www.w3.org/2000/svg", "polygon");
    polygon.setAttribute("points", region.map((p) => p[0] + "," + p[1]).join(" "));
    polygon.setAttribute("class", "region " + (result.status || ""));
    polygon.setAttribute("vector-effect", "non-scaling-stroke");
    svg.appendChild(polygon);
    svg.setAttribute("data-drawn", "true");
    $("overlay-caption").textContent = "The outline marks where the machine readable zone was found.";
  }

  function show(result) {
    $("output").hidden = false;
    showFields(result.fields);
    $("lines").textContent = (result.lines || []).join("\n");
    showChecks(result.checks);
    showList("corrections", result.corrections, (c) =>
      "Line " + c.line + ", column " + c.column + ": " + c.from + " became " + c.to + " (" + c.why + ")",
      "None: every character is as read.");
    showList("diagnostics", (result.diagnostics || []).concat(result.warnings || []),
      (d) => d.message || d.code, "None.");
    $("raw").textContent = JSON.stringify(result, null, 2);
    drawRegion(result);
    setStatus(summary(result), false);
  }

  function fail(error) {
    setStatus("Could not read the document: " + error.message, false);
    if (error.status === 401 || error.status === 403) {
      // The server wants credentials: open the options and put the cursor in the key field.
      $("api_key").closest("details").open = true;
      $("api_key").focus();
    }
  }

  function options() {
    const hours = parseInt($("retain_hours").value, 10);
    return {
      retainHours: Number.isFinite(hours) && hours > 0 ? hours : 0,
      referenceDate: $("reference_date").value || "",
    };
  }

  async function scanSelected(file) {
    if (!file) {
      setStatus("Choose a photo first.", false);
      $("image").focus();
      return;
    }
    if (photoUrl) URL.revokeObjectURL(photoUrl);
    photoUrl = URL.createObjectURL(file);
    $("photo").src = photoUrl;
    setStatus("Reading the document…", true);
    $("scan-button").disabled = true;
    try {
      const { retainHours, referenceDate } = options();
      show(await scanFile(file, retainHours, referenceDate));
    } catch (error) {
      fail(error);
    } finally {
      $("scan-button").disabled = false;
    }
  }

  function setUp() {
    const keyInput = $("api_key");
    keyInput.value = sessionStorage.getItem(KEY_STORAGE) || "";
    keyInput.addEventListener("change", () => {
      const key = keyInput.value.trim();
      if (key) sessionStorage.setItem(KEY_STORAGE, key);
      else sessionStorage.removeItem(KEY_STORAGE);
    });

    $("scan-form").addEventListener("submit", (event) => {
      event.preventDefault();
      scanSelected($("image").files[0]);
    });
    // Choosing a file reads it at once; the button reads it again with new options.
    $("image").addEventListener("change", () => {
      if ($("image").files[0]) scanSelected($("image").files[0]);
    });

    const drop = $("drop");
    drop.addEventListener("dragover", (event) => {
      event.preventDefault();
      drop.classList.add("over");
    });
    drop.addEventListener("dragleave", () => drop.classList.remove("over"));
    drop.addEventListener("drop", (event) => {
      event.preventDefault();
      drop.classList.remove("over");
      const file = event.dataTransfer && event.dataTransfer.files[0];
      if (file) scanSelected(file);
    });

    $("parse-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const text = $("mrz_text").value;
      if (!text.trim()) {
        setStatus("Type the two or three MRZ lines first.", false);
        $("mrz_text").focus();
        return;
      }
      if (photoUrl) URL.revokeObjectURL(photoUrl);
      photoUrl = null;
      setStatus("Parsing the lines…", true);
      try {
        const input = { text: text };
        const referenceDate = options().referenceDate;
        if (referenceDate) input.reference_date = referenceDate;
        show(await parseLines(input));
      } catch (error) {
        fail(error);
      }
    });

    registerWebMcp();
  }

  /** The tool result shape WebMCP agents expect: text for the model, the object for programs. */
  async function asToolResult(call) {
    try {
      const result = await call();
      show(result);
      return {
        content: [{ type: "text", text: JSON.stringify(result) }],
        structuredContent: result,
      };
    } catch (error) {
      return { content: [{ type: "text", text: error.message }], isError: true };
    }
  }

  /** Offers the page's two actions to in-browser agents through WebMCP, where it exists. */
  function registerWebMcp() {
    const context = navigator.modelContext || document.modelContext;
    if (!context) return;
    const tools = [
      {
        name: "scan_document",
        description: "Read the machine readable zone of a passport, ID card or visa photo. " +
          "Give the image as base64 (a data: URL also works). Returns the fields, check-digit " +
          "verdicts, corrections and diagnostics.",
        inputSchema: {
          type: "object",
          properties: {
            image_base64: { type: "string", description: "The photo (JPEG, PNG, WebP, TIFF, BMP or HEIC) as base64." },
            retain_hours: { type: "integer", minimum: 0, maximum: 8760, description: "Keep the result this many hours; 0 keeps nothing." },
            reference_date: { type: "string", description: "YYYY-MM-DD; default today." },
          },
          required: ["image_base64"],
        },
        annotations: { readOnlyHint: false },
        execute: (input) => asToolResult(() => scanBase64(input || {})),
      },
      {
        name: "parse_mrz",
        description: "Parse typed MRZ lines (2 or 3, top first) of a passport, ID card or visa " +
          "and verify every check digit.",
        inputSchema: {
          type: "object",
          properties: {
            lines: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 3 },
            reference_date: { type: "string", description: "YYYY-MM-DD; default today." },
          },
          required: ["lines"],
        },
        annotations: { readOnlyHint: true },
        execute: (input) => asToolResult(() => parseLines(input || {})),
      },
    ];
    try {
      if (typeof context.registerTool === "function") {
        for (const tool of tools) context.registerTool(tool);
      } else if (typeof context.provideContext === "function") {
        context.provideContext({ tools: tools });
      }
      document.documentElement.dataset.webmcp = "registered";
    } catch (error) {
      // An agent-less browser or an older API shape: the page works the same without it.
      document.documentElement.dataset.webmcp = "unavailable";
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
