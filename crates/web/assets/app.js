// The mrtd page: sends a photo, typed lines or a chip's files to the REST API and shows the
// result.
// No framework and no build step; everything here runs as written.
"use strict";

(function () {
  const KEY_STORAGE = "mrtd.apiKey";
  const FIELDS = [
    "document_code", "issuer", "document_number", "surname", "given_names", "nationality",
    "birth_date", "sex", "expiry_date", "optional_data", "optional_data_2",
  ];
  const DIAGNOSTIC_CODES = [
    "no_mrz_found", "turn_over", "mrz_cut_at_edge", "too_small", "too_blurred", "glare",
    "partly_covered", "marked_over", "line_unreadable", "check_digit_failed", "low_confidence",
    "rotated", "corrected", "another_mrz", "visual_zone_differs",
  ];
  /** The language of the names a national coding gives in the document's own script. */
  const NATIVE_LANG = { rus_internal_passport: "ru" };
  /** Where the fields no check digit covers sit, by format: [field, line, first, last]. */
  const UNCOVERED_CELLS = {
    TD3: [["document_code", 1, 1, 2], ["issuer", 1, 3, 5], ["names", 1, 6, 44], ["nationality", 2, 11, 13], ["sex", 2, 21, 21]],
    MRVA: [["document_code", 1, 1, 2], ["issuer", 1, 3, 5], ["names", 1, 6, 44], ["nationality", 2, 11, 13], ["sex", 2, 21, 21]],
    TD2: [["document_code", 1, 1, 2], ["issuer", 1, 3, 5], ["names", 1, 6, 36], ["nationality", 2, 11, 13], ["sex", 2, 21, 21]],
    MRVB: [["document_code", 1, 1, 2], ["issuer", 1, 3, 5], ["names", 1, 6, 36], ["nationality", 2, 11, 13], ["sex", 2, 21, 21]],
    TD1: [["document_code", 1, 1, 2], ["issuer", 1, 3, 5], ["sex", 2, 8, 8], ["nationality", 2, 16, 18], ["names", 3, 1, 30]],
  };

  /** ISO 3166-1 alpha-3 codes, as ICAO 9303 prints them, to alpha-2 ones for Intl.DisplayNames. */
  const ALPHA2 = Object.fromEntries([
    "ABW:AW AFG:AF AGO:AO AIA:AI ALA:AX ALB:AL AND:AD ARE:AE ARG:AR ARM:AM ASM:AS ATA:AQ ATF:TF",
    "ATG:AG AUS:AU AUT:AT AZE:AZ BDI:BI BEL:BE BEN:BJ BES:BQ BFA:BF BGD:BD BGR:BG BHR:BH BHS:BS",
    "BIH:BA BLM:BL BLR:BY BLZ:BZ BMU:BM BOL:BO BRA:BR BRB:BB BRN:BN BTN:BT BVT:BV BWA:BW CAF:CF",
    "CAN:CA CCK:CC CHE:CH CHL:CL CHN:CN CIV:CI CMR:CM COD:CD COG:CG COK:CK COL:CO COM:KM CPV:CV",
    "CRI:CR CUB:CU CUW:CW CXR:CX CYM:KY CYP:CY CZE:CZ DEU:DE DJI:DJ DMA:DM DNK:DK DOM:DO DZA:DZ",
    "ECU:EC EGY:EG ERI:ER ESH:EH ESP:ES EST:EE ETH:ET FIN:FI FJI:FJ FLK:FK FRA:FR FRO:FO FSM:FM",
    "GAB:GA GBR:GB GEO:GE GGY:GG GHA:GH GIB:GI GIN:GN GLP:GP GMB:GM GNB:GW GNQ:GQ GRC:GR GRD:GD",
    "GRL:GL GTM:GT GUF:GF GUM:GU GUY:GY HKG:HK HMD:HM HND:HN HRV:HR HTI:HT HUN:HU IDN:ID IMN:IM",
    "IND:IN IOT:IO IRL:IE IRN:IR IRQ:IQ ISL:IS ISR:IL ITA:IT JAM:JM JEY:JE JOR:JO JPN:JP KAZ:KZ",
    "KEN:KE KGZ:KG KHM:KH KIR:KI KNA:KN KOR:KR KWT:KW LAO:LA LBN:LB LBR:LR LBY:LY LCA:LC LIE:LI",
    "LKA:LK LSO:LS LTU:LT LUX:LU LVA:LV MAC:MO MAF:MF MAR:MA MCO:MC MDA:MD MDG:MG MDV:MV MEX:MX",
    "MHL:MH MKD:MK MLI:ML MLT:MT MMR:MM MNE:ME MNG:MN MNP:MP MOZ:MZ MRT:MR MSR:MS MTQ:MQ MUS:MU",
    "MWI:MW MYS:MY MYT:YT NAM:NA NCL:NC NER:NE NFK:NF NGA:NG NIC:NI NIU:NU NLD:NL NOR:NO NPL:NP",
    "NRU:NR NZL:NZ OMN:OM PAK:PK PAN:PA PCN:PN PER:PE PHL:PH PLW:PW PNG:PG POL:PL PRI:PR PRK:KP",
    "PRT:PT PRY:PY PSE:PS PYF:PF QAT:QA REU:RE ROU:RO RUS:RU RWA:RW SAU:SA SDN:SD SEN:SN SGP:SG",
    "SGS:GS SHN:SH SJM:SJ SLB:SB SLE:SL SLV:SV SMR:SM SOM:SO SPM:PM SRB:RS SSD:SS STP:ST SUR:SR",
    "SVK:SK SVN:SI SWE:SE SWZ:SZ SXM:SX SYC:SC SYR:SY TCA:TC TCD:TD TGO:TG THA:TH TJK:TJ TKL:TK",
    "TKM:TM TLS:TL TON:TO TTO:TT TUN:TN TUR:TR TUV:TV TWN:TW TZA:TZ UGA:UG UKR:UA UMI:UM URY:UY",
    "USA:US UZB:UZ VAT:VA VCT:VC VEN:VE VGB:VG VIR:VI VNM:VN VUT:VU WLF:WF WSM:WS YEM:YE ZAF:ZA",
    "ZMB:ZM ZWE:ZW",
  ].join(" ").split(" ").map((pair) => pair.split(":")));
  /** The fields whose value is an issuing state or nationality code. */
  const COUNTRY_FIELDS = ["issuer", "nationality"];
  /** Where the page's "Try a sample" photo is served (a Utopia specimen passport). */
  const SAMPLE_URL = "/assets/specimen-uto.jpg";

  const $ = (id) => document.getElementById(id);
  let photoUrl = null;
  /** The last result or chip report as JSON text, for the copy and download buttons. */
  let lastJson = "";
  /** The MRZ lines of the result shown, which the printed page is compared with. */
  let lastLines = [];
  /** The page's language, for dates and country names. */
  const LANG = document.documentElement.lang || "en";

  /** The page's words in its language (filled in by the server). */
  const MESSAGES = (function () {
    try {
      return JSON.parse(document.getElementById("messages").textContent);
    } catch (_) {
      return {};
    }
  })();

  /** A text by key, with `{name}` placeholders filled from `values`. */
  function t(key, values) {
    const text = MESSAGES[key] || key;
    return text.replace(/\{(\w+)\}/g, (_, name) => (values && name in values ? String(values[name]) : ""));
  }

  /**
   * A code's name in the page's language: ICAO 9303's own codes (D, GBD, UNO, XXA, ...) and
   * the specimen state UTO from the page's words, countries from the browser; "" for a code
   * nobody names.
   */
  function countryName(code) {
    if (!code) return "";
    if (MESSAGES["cc_" + code]) return t("cc_" + code);
    const alpha2 = ALPHA2[code];
    if (!alpha2 || typeof Intl.DisplayNames !== "function") return "";
    try {
      return new Intl.DisplayNames([LANG], { type: "region", fallback: "none" }).of(alpha2) || "";
    } catch (_) {
      return "";
    }
  }

  /** A YYYY-MM-DD date written out in the page's language; anything else as it is. */
  function longDate(iso) {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso || "");
    if (!match) return iso || "";
    const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
    return new Intl.DateTimeFormat(LANG, { dateStyle: "long", timeZone: "UTC" }).format(date);
  }

  /**
   * The expiry badge, from the result's verdict: expired, soon (within 183 days of the
   * reference date) or valid; null without a complete expiry date.
   */
  function expiryOf(result) {
    const kinds = { expired: "expired", expires_soon: "soon", in_date: "valid" };
    return kinds[(result.verdict || {}).expiry] || null;
  }

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
      // The page says what the code means in its own language; the server's `detail` is
      // English, kept for agents (WebMCP).
      const code = body && (body.code || (body.error && body.error.code));
      const detail = body && (body.detail || (body.error && body.error.message));
      const known = typeof code === "string" && Object.prototype.hasOwnProperty.call(MESSAGES, "e_" + code);
      const error = new Error(known ? t("e_" + code) : t("s_server", { status: response.status }));
      error.status = response.status;
      error.code = code || "";
      error.detail = detail || error.message;
      throw error;
    }
    return body;
  }

  async function scanFile(file, options, otherSide, includeImages) {
    const { retainHours, referenceDate, visualZone } = options;
    const form = new FormData();
    form.append("image", file, file.name || "photo");
    if (includeImages) form.append("include_images", "true");
    if (visualZone) form.append("visual_zone", "true");
    if (otherSide) form.append("other_side", otherSide, otherSide.name || "other side");
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

  /** The headline: the words, a colour for the verdict, and the expiry badge when known. */
  function setStatus(text, busy, verdict, expiry) {
    const status = $("status");
    status.textContent = text;
    // The colour says at a glance what the words say: a clean reading, an expired document.
    status.dataset.verdict = verdict || "";
    if (expiry) {
      const badge = document.createElement("span");
      badge.id = "expiry";
      badge.className = "badge " + expiry.kind;
      badge.dataset.expiry = expiry.kind;
      badge.textContent = t("x_" + expiry.kind, { date: longDate(expiry.date) });
      status.appendChild(document.createTextNode(" "));
      status.appendChild(badge);
    }
    $("result").setAttribute("aria-busy", busy ? "true" : "false");
  }

  /** After a result, the keyboard and screen readers go on from its heading. */
  function focusResult() {
    $("result-heading").focus({ preventScroll: true });
  }

  /** Keeps the result's JSON for the copy and download buttons, and shows them. */
  function keepJson(value) {
    lastJson = JSON.stringify(value, null, 2);
    $("json-actions").hidden = false;
    $("copy-note").textContent = "";
  }

  async function copyJson() {
    try {
      await navigator.clipboard.writeText(lastJson);
      $("copy-note").textContent = t("copied");
    } catch (_) {
      $("copy-note").textContent = t("copy_failed");
    }
  }

  function downloadJson() {
    const url = URL.createObjectURL(new Blob([lastJson], { type: "application/json" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = "mrtd-result.json";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
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

  /** The formats as ICAO 9303 writes them. */
  const FORMAT_NAMES = { TD1: "TD1", TD2: "TD2", TD3: "TD3", MRVA: "MRV-A", MRVB: "MRV-B" };

  function summary(result) {
    const format = FORMAT_NAMES[result.format] || result.format || t("unknown_format");
    if (result.status === "read") {
      const parts = [t(result.valid ? "s_read" : "s_read_invalid", { format: format })];
      if (pdfPage(result)) parts.push(t("pdf_page", { page: pdfPage(result) }));
      if (result.scan_id) parts.push(t("s_kept", { id: result.scan_id, until: result.expires_at }));
      return parts.join(" ");
    }
    if (result.status === "partial") {
      // Typed lines (no photo) whose check digits fail were mistyped, not misread: say which.
      const refuted = (result.verdict || {}).refuted || [];
      const own = refuted.filter((name) => name !== "composite");
      if (!result.image && refuted.length > 0) {
        const names = (own.length > 0 ? own : refuted).map((name) => t("f_" + name).toLowerCase());
        return t("s_typed_refuted", { checks: names.join(", ") });
      }
      const partial = t("s_partial", { format: format });
      return pdfPage(result) ? partial + " " + t("pdf_page", { page: pdfPage(result) }) : partial;
    }
    return t("s_no_mrz");
  }

  /** The page of a PDF the reading comes from (from 1), or 0. */
  function pdfPage(result) {
    const image = result.image;
    return image && image.format === "pdf" && image.page ? image.page : 0;
  }

  /** One word for the summary's colour: read, read_invalid, expired, partial or no_mrz. */
  /** The headline's colour: the result's verdict, decided by the server. */
  function verdictOf(result) {
    return (result.verdict || {}).headline || result.status;
  }

  /** The field a cell belongs to, for the fields no check digit covers; null otherwise. */
  function uncoveredFieldAt(result, line, column) {
    const cells = UNCOVERED_CELLS[result.format] || [];
    for (const [field, l, first, last] of cells) {
      if (l !== line || column < first || column > last) continue;
      if (field !== "names") return field;
      // The surname ends at the first "<<" of the name field.
      const text = (result.lines || [])[line - 1] || "";
      const split = text.indexOf("<<", first - 1);
      return split >= 0 && column - 1 >= split ? "given_names" : "surname";
    }
    return null;
  }

  /** Each field's mark: verified, uncovered, corrected or doubtful. */
  function fieldMarks(result) {
    const marks = {};
    const checkStatus = {};
    for (const check of result.checks || []) checkStatus[check.name] = check.status;
    // A wrong digit fails its own check digit and the composite: the composite's failure is
    // then explained, and says nothing against a field whose own check digits hold.
    const ownRefuted = Object.entries(checkStatus)
      .some(([name, status]) => name !== "composite" && status === "refuted");
    for (const evidence of result.evidence || []) {
      const own = (evidence.checks || []).filter((name) => name !== "composite");
      const ownHold = own.length > 0 && own.every((name) => checkStatus[name] === "verified");
      marks[evidence.field] = evidence.status === "verified" ? "verified"
        : evidence.status === "refuted" ? (ownHold && ownRefuted ? "verified" : "doubtful")
        : "uncovered";
      // A field the reader is not sure of is doubtful, whatever covers it.
      if (typeof evidence.confidence === "number" && evidence.confidence < 0.8) {
        marks[evidence.field] = "doubtful";
      }
    }
    const checks = result.checks || [];
    for (const correction of result.corrections || []) {
      let field = uncoveredFieldAt(result, correction.line, correction.column);
      if (!field) {
        const check = checks.find((c) => c.name !== "composite" && (c.covers || []).some((span) =>
          span.line === correction.line && correction.column >= span.from && correction.column <= span.to));
        field = check ? check.name : null;
      }
      if (field && marks[field] !== "doubtful") marks[field] = "corrected";
    }
    // Places where several readings fit, and names read with low confidence, are doubtful.
    for (const ambiguity of result.ambiguities || []) {
      for (const name of ambiguity.checks || []) if (name !== "composite") marks[name] = "doubtful";
    }
    // A photo not read with confidence leaves what no check digit covers in doubt; typed
    // lines (no photo) are what the person typed, and only a failing check digit doubts them.
    if (result.status !== "read" && result.image) {
      for (const field of Object.keys(marks)) if (marks[field] === "uncovered") marks[field] = "doubtful";
    }
    return marks;
  }

  /**
   * What the page adds beside a field's value: a code's country name, a date written out in
   * the page's language, the holder's age; null for other fields.
   */
  function fieldExtra(result, key) {
    const value = result.fields[key];
    const span = (className, text) => {
      const element = document.createElement("span");
      element.className = className;
      element.textContent = text;
      return element;
    };
    if (COUNTRY_FIELDS.includes(key)) {
      const name = countryName(String(value));
      return name ? span("country", name) : null;
    }
    if (key !== "birth_date" && key !== "expiry_date") return null;
    const wrapper = span("extra", "");
    wrapper.appendChild(span("date", longDate(String(value))));
    const age = (result.derived || {}).age_years;
    if (key === "birth_date" && typeof age === "number") {
      const plural = new Intl.PluralRules(LANG).select(age) === "one" ? "age_one" : "age_other";
      wrapper.appendChild(document.createTextNode(" · "));
      wrapper.appendChild(span("age", t(plural, { years: age })));
    }
    return wrapper;
  }

  function showFields(result) {
    const list = $("fields");
    clear(list);
    const fields = result.fields;
    $("legend").hidden = !fields;
    if (!fields) {
      const dd = document.createElement("dd");
      dd.textContent = t("no_fields");
      list.appendChild(dd);
      return;
    }
    const marks = fieldMarks(result);
    for (const key of FIELDS) {
      if (fields[key] === undefined || fields[key] === null || fields[key] === "") continue;
      const dt = document.createElement("dt");
      dt.textContent = t("f_" + key);
      const dd = document.createElement("dd");
      const value = document.createElement("span");
      value.className = "value";
      value.textContent = String(fields[key]);
      dd.appendChild(value);
      const extra = fieldExtra(result, key);
      if (extra) {
        dd.appendChild(document.createTextNode(" "));
        dd.appendChild(extra);
      }
      // A national coding's names in the document's own script, beside the names as printed.
      const national = result.national;
      const native = national && national[key + "_native"];
      if (native) {
        const script = document.createElement("span");
        script.className = "native";
        script.lang = NATIVE_LANG[national.variant] || "";
        script.textContent = native;
        dd.appendChild(document.createTextNode(" "));
        dd.appendChild(script);
      }
      dd.dataset.field = key;
      const mark = marks[key] || "uncovered";
      dd.dataset.mark = mark;
      const badge = document.createElement("span");
      badge.className = "mark " + mark;
      badge.textContent = t("mark_" + mark);
      badge.title = t("mark_" + mark + "_long");
      dd.appendChild(document.createTextNode(" "));
      dd.appendChild(badge);
      list.appendChild(dt);
      list.appendChild(dd);
    }
  }

  function showChecks(checks) {
    const body = $("checks").tBodies[0];
    clear(body);
    $("checks-section").hidden = !checks || checks.length === 0;
    for (const check of checks || []) {
      const row = body.insertRow();
      const name = document.createElement("th");
      name.scope = "row";
      name.textContent = t("f_" + check.name);
      row.appendChild(name);
      const verdict = row.insertCell();
      verdict.textContent = t("v_" + check.status, { printed: check.printed, computed: check.computed });
      verdict.className = "verdict " + check.status;
    }
  }

  /** Fills a list, hiding its section when there is nothing to say. */
  function showList(id, entries, describe) {
    const list = $(id);
    clear(list);
    list.closest("section").hidden = !entries || entries.length === 0;
    for (const entry of entries || []) item(list, describe(entry));
  }

  /** A diagnostic in the page's language: the server's sentence in English, ours otherwise. */
  function advice(diagnostic, typed) {
    if (document.documentElement.lang === "en" && diagnostic.message) return diagnostic.message;
    // Typed lines were mistyped, not photographed badly: no advice to retake a photo.
    if (typed && diagnostic.code === "check_digit_failed") return t("d_check_digit_typed");
    return DIAGNOSTIC_CODES.includes(diagnostic.code) ? t("d_" + diagnostic.code)
      : diagnostic.message || t("d_other");
  }

  /** An SVG element of the overlay, its stroke as wide on screen whatever the photo's scale. */
  function shape(svg, name, className, attributes) {
    const element = document.createElementNS("http://www.w3.org/2000/svg", name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    element.setAttribute("class", className);
    element.setAttribute("vector-effect", "non-scaling-stroke");
    svg.appendChild(element);
  }

  /**
   * One document's zone, page (by the format's layout) and portrait box, in the photo's pixels;
   * `other` marks a second document found in the same photo. Says whether its page was drawn.
   */
  function drawDocument(svg, found, other) {
    const extra = other ? " other" : "";
    const points = (corners) => corners.map((p) => p[0] + "," + p[1]).join(" ");
    if (Array.isArray(found.region) && found.region.length === 4) {
      shape(svg, "polygon", "region " + (found.status || "") + extra, { points: points(found.region) });
    }
    const corners = found.document && found.document.corners;
    const hasPage = Array.isArray(corners) && corners.length === 4;
    if (hasPage) shape(svg, "polygon", "page" + extra, { points: points(corners) });
    const box = found.portrait && found.portrait.box;
    if (Array.isArray(box) && box.length === 4) {
      shape(svg, "rect", "portrait" + extra, {
        x: box[0], y: box[1], width: box[2] - box[0], height: box[3] - box[1],
      });
    }
    return hasPage;
  }

  /** Draws the MRZ quadrilateral over the photo, in the photo's own pixel space. */
  function drawRegion(result) {
    const svg = $("overlay");
    clear(svg);
    const image = result.image;
    const figure = $("preview");
    if (!photoUrl) {
      figure.hidden = true;
      return;
    }
    figure.hidden = false;
    const box = result.portrait && result.portrait.box;
    const hasRegion = Array.isArray(result.region) && result.region.length === 4;
    // A side without a zone that shows a face (a card's front): the face is drawn.
    if ((!hasRegion && !Array.isArray(box)) || !image || !image.width) {
      svg.removeAttribute("data-drawn");
      $("overlay-caption").textContent = t("no_outline");
      return;
    }
    svg.setAttribute("viewBox", "0 0 " + image.width + " " + image.height);
    svg.setAttribute("preserveAspectRatio", "none");
    const hasPage = drawDocument(svg, result, false);
    // Another document in the same photo is drawn too, in its own (dotted) lines.
    const others = result.other_documents || [];
    for (const found of others) drawDocument(svg, found, true);
    svg.setAttribute("data-drawn", "true");
    const caption = t(!hasRegion ? "outline_face" : hasPage ? "outline_page" : "outline");
    $("overlay-caption").textContent = others.length ? caption + " " + t("outline_other") : caption;
  }

  function show(result) {
    $("chip-output").hidden = true;
    $("output").hidden = false;
    showFields(result);
    $("lines").textContent = (result.lines || []).join("\n");
    $("lines-section").hidden = !result.lines || result.lines.length === 0;
    lastLines = result.lines || [];
    resetPrinted(lastLines.length === 0);
    if (result.visual_zone) showVisualZone(result.visual_zone);
    showChecks(result.checks);
    showList("corrections", result.corrections, (c) => t("correction", {
      line: c.line, column: c.column, from: c.from, to: c.to, why: t("w_" + c.why),
    }));
    // Advice comes first: on a failed read it is what a person needs.
    showList("diagnostics", (result.diagnostics || []).filter((d) => d.code !== "corrected"),
      (d) => advice(d, !result.image));
    for (const found of result.other_documents || []) {
      const format = FORMAT_NAMES[found.format] || found.format || t("unknown_format");
      const status = t(found.status === "read" ? "other_read" : "other_partial");
      item($("diagnostics"), t("other_document", {
        format: format, status: status, lines: (found.lines || []).join(" / "),
      }));
    }
    const other = result.other_side;
    if (other) {
      const what = other.status !== "no_mrz" ? t("other_zone")
        : other.portrait && other.portrait.face_found ? t("other_face") : t("other_nothing");
      item($("diagnostics"), t("other_side_seen", { file: otherSideName(other), what: what }));
      $("diagnostics").closest("section").hidden = false;
    }
    $("raw").textContent = JSON.stringify(result, null, 2);
    keepJson(result);
    drawRegion(result);
    const expiry = expiryOf(result);
    setStatus(summary(result), false, verdictOf(result),
      expiry ? { kind: expiry, date: result.fields.expiry_date } : null);
    revealResult();
    focusResult();
  }

  const PRINTED_FIELDS = ["surname", "given_names", "birth_date", "expiry_date", "document_number", "sex"];

  /** Clears the printed page's comparison for a new result; hides it when there are no lines. */
  function resetPrinted(hide) {
    $("printed-section").hidden = hide;
    for (const name of PRINTED_FIELDS) {
      $("printed-" + name).value = "";
      setAgreement(name, null);
    }
    $("printed-verdict").textContent = "";
    delete $("printed-verdict").dataset.agreement;
    $("printed-source").hidden = true;
    $("visual-extra").hidden = true;
    $("visual-extra").replaceChildren();
  }

  /** The result's fields of the visual zone under the names of the printed page's form. */
  const VISUAL_FIELDS = {
    surname: "surname", given_names: "given_names", birth_date: "birth_date",
    expiry_date: "expiry_date", document_number: "document_number", sex: "sex",
  };
  /** The visual zone's fields the MRZ does not hold, listed under the form. */
  const VISUAL_ONLY = ["date_of_issue", "place_of_birth", "issuing_authority", "personal_number"];

  /** Fills the printed page's form with what was read on the photo's page, and its marks. */
  function showVisualZone(zone) {
    const fields = zone.fields || {};
    for (const name of PRINTED_FIELDS) {
      const field = fields[VISUAL_FIELDS[name]];
      $("printed-" + name).value = field ? field.value : "";
    }
    $("printed-section").open = true;
    $("printed-source").hidden = false;
    showAgreement(zone.agreement || {}, zone.matches_mrz);
    const extra = $("visual-extra");
    for (const name of VISUAL_ONLY) {
      if (!fields[name]) continue;
      const term = document.createElement("dt");
      term.textContent = t("f_" + name);
      const value = document.createElement("dd");
      value.textContent = fields[name].value;
      extra.append(term, value);
    }
    extra.hidden = extra.childElementCount === 0;
  }

  /** The marks beside the printed fields and the one verdict naming those that differ. */
  function showAgreement(agreement, matches) {
    const verdict = $("printed-verdict");
    for (const name of PRINTED_FIELDS) setAgreement(name, agreement[name] || null);
    const differing = PRINTED_FIELDS.filter((name) => agreement[name] === "differs");
    if (matches === true) {
      verdict.dataset.agreement = "agrees";
      verdict.textContent = t("printed_agrees");
    } else if (matches === false) {
      verdict.dataset.agreement = "differs";
      verdict.textContent = t("printed_differs", {
        fields: differing.map((name) => t("f_" + name)).join(", "),
      });
    } else {
      verdict.textContent = t("printed_unknown");
    }
  }

  /** The mark beside one printed field: how it compares with the MRZ, or nothing. */
  function setAgreement(name, agreement) {
    const mark = document.querySelector('[data-agreement="' + name + '"]');
    mark.className = "mark" + (agreement ? " " + agreementClass(agreement) : "");
    mark.textContent = agreement ? t("a_" + agreement) : "";
  }

  function agreementClass(agreement) {
    if (agreement === "agrees" || agreement === "agrees_truncated") return "agrees";
    return agreement === "differs" ? "differs" : "unknown";
  }

  /** Sets what the page prints against the MRZ shown (POST /v1/check), field by field. */
  async function comparePrinted() {
    const printed = {};
    for (const name of PRINTED_FIELDS) {
      const value = $("printed-" + name).value.trim();
      if (value) printed[name] = value;
    }
    const verdict = $("printed-verdict");
    delete verdict.dataset.agreement;
    if (Object.keys(printed).length === 0) {
      verdict.textContent = t("printed_none");
      $("printed-surname").focus();
      return;
    }
    try {
      const response = await fetch("/v1/check", {
        method: "POST",
        headers: apiHeaders({ "Content-Type": "application/json" }),
        body: JSON.stringify({ lines: lastLines, printed: printed }),
      });
      const answers = await readResponse(response);
      showAgreement(answers.printed_agreement || {}, answers.viz_matches_mrz);
    } catch (error) {
      verdict.textContent = error.code === "invalid_request" ? t("printed_invalid") : error.message;
    }
  }

  /** Chip diagnostics the page explains in its own words where the server's are English. */
  const CHIP_DIAGNOSTIC_CODES = [
    "no_trust_anchor", "untrusted", "data_group_mismatch", "data_group_not_in_sod",
    "signature_invalid", "unsupported_algorithm", "expired", "revoked", "trust_file_unusable",
    "no_data_groups", "active_authentication", "crl_stale",
  ];

  function chipAdvice(diagnostic) {
    if (document.documentElement.lang === "en" && diagnostic.message) return diagnostic.message;
    return CHIP_DIAGNOSTIC_CODES.includes(diagnostic.code) ? t("cd_" + diagnostic.code)
      : diagnostic.message || t("d_other");
  }

  /** A file's bytes as base64. */
  async function fileBase64(file) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary);
  }

  /** Hexadecimal text (spaces allowed) as base64, or null when it is not hexadecimal. */
  function hexBase64(text) {
    const hex = text.replace(/\s+/g, "");
    if (!hex || hex.length % 2 !== 0 || !/^[0-9A-Fa-f]+$/.test(hex)) return null;
    let binary = "";
    for (let i = 0; i < hex.length; i += 2) binary += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16));
    return btoa(binary);
  }

  async function verifyChip(input) {
    const response = await fetch("/v1/chip/verify", {
      method: "POST",
      headers: apiHeaders({ "Content-Type": "application/json" }),
      body: JSON.stringify(input),
    });
    return readResponse(response);
  }

  /** One row of the chip report: a term and its value, marked good or bad. */
  function chipRow(list, term, value, good) {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = value;
    if (good !== undefined) dd.className = "verdict " + (good ? "verified" : "refuted");
    list.appendChild(dt);
    list.appendChild(dd);
  }

  function showChip(report) {
    $("output").hidden = true;
    $("chip-output").hidden = false;
    const list = $("chip-report");
    clear(list);
    chipRow(list, t("c_signature"), t("cv_" + report.signature), report.signature === "verified");
    chipRow(list, t("c_chain"), t("cv_" + report.chain), report.chain === "trusted");
    const groups = (report.data_groups || []).map((g) => "DG" + g.number + ": " + t("cv_" + g.status));
    chipRow(list, t("c_data_groups"), groups.length ? groups.join(", ") : t("c_none"),
      (report.data_groups || []).every((g) => g.status === "verified"));
    if ((report.not_supplied || []).length) {
      chipRow(list, t("c_not_supplied"), report.not_supplied.map((n) => "DG" + n).join(", "));
    }
    const active = report.active_authentication || { status: "not_supplied" };
    if (active.status !== "not_supplied") {
      const how = active.algorithm ? " (" + active.algorithm + ")" : "";
      chipRow(list, t("c_active"), t("cv_" + active.status) + how, active.status === "verified");
      chipRow(list, t("c_chip"), t(report.authentic_chip ? "c_genuine" : "c_not_genuine"), report.authentic_chip);
    }
    if (report.signer) chipRow(list, t("c_signer"), report.signer.subject + " (" + report.signer.public_key + ")");
    if (report.trust_anchor) chipRow(list, t("c_csca"), report.trust_anchor.subject);
    const lines = report.mrz ? report.mrz.lines || [] : [];
    $("chip-mrz").textContent = lines.join("\n");
    $("chip-mrz-section").hidden = lines.length === 0;
    showList("chip-diagnostics", report.diagnostics, chipAdvice);
    $("chip-raw").textContent = JSON.stringify(report, null, 2);
    keepJson(report);
    const parts = [t(report.authentic ? "s_chip_authentic" : "s_chip_not_authentic")];
    if (report.authentic_chip) parts.push(t("s_chip_genuine"));
    setStatus(parts.join(" "), false);
    revealResult();
    focusResult();
  }

  /** Sends EF.SOD, the data groups and the Active Authentication pair, and shows the report. */
  async function checkChip(sod, groups) {
    if (!sod) {
      setStatus(t("s_choose_sod"), false);
      $("chip_sod").focus();
      return;
    }
    const challengeText = $("aa_challenge").value.trim();
    const answer = $("aa_response").files[0];
    const input = { sod_base64: "", data_groups_base64: [] };
    if (challengeText || answer) {
      const challenge = hexBase64(challengeText);
      if (!challenge || !answer) {
        setStatus(t("s_bad_challenge"), false);
        $("aa_challenge").focus();
        return;
      }
      input.aa_challenge_base64 = challenge;
      input.aa_response_base64 = await fileBase64(answer);
    }
    if (photoUrl) URL.revokeObjectURL(photoUrl);
    photoUrl = null;
    setStatus(t("s_verifying"), true);
    $("chip-button").disabled = true;
    try {
      input.sod_base64 = await fileBase64(sod);
      input.data_groups_base64 = await Promise.all(groups.map(fileBase64));
      showChip(await verifyChip(input));
    } catch (error) {
      fail(error);
    } finally {
      $("chip-button").disabled = false;
    }
  }

  /** Of files dropped together, the one named like EF.SOD is EF.SOD; the others are data groups. */
  function splitChipFiles(files) {
    const all = Array.from(files || []);
    const sod = all.find((f) => /(^|[.\-_ ])SOD(\.bin)?$/i.test(f.name)) || null;
    return { sod: sod, groups: all.filter((f) => f !== sod) };
  }

  /** On a narrow screen the result is below the forms: bring it into view. */
  function revealResult() {
    const box = $("result").getBoundingClientRect();
    if (box.top > window.innerHeight * 0.6 && typeof $("result").scrollIntoView === "function") {
      $("result").scrollIntoView({ behavior: "smooth", block: "start" });
    }
  }

  function fail(error) {
    // fetch rejects with a TypeError, in the browser's words, when no answer came at all.
    const message = error instanceof TypeError ? t("s_unreachable") : error.message;
    setStatus(t("s_failed", { message: message }), false, "failed");
    $("json-actions").hidden = true;
    revealResult();
    focusResult();
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
      visualZone: $("visual_zone").checked,
    };
  }

  /** The names of the photo and of the other side last sent, for the words about the pair. */
  let scannedNames = ["", ""];

  /** The file name of the side the result is not of. */
  function otherSideName(other) {
    return scannedNames[other.photo === 1 ? 0 : 1];
  }

  /** Shows `file` as the preview the result is drawn over. */
  function previewOf(file) {
    if (photoUrl) URL.revokeObjectURL(photoUrl);
    // Browsers show JPEG, PNG, WebP and BMP; HEIC, TIFF and PDF are read without a preview.
    photoUrl = /^image\/(jpeg|png|webp|bmp|gif)$/.test(file.type) ? URL.createObjectURL(file) : null;
    if (photoUrl) $("photo").src = photoUrl;
  }

  async function scanSelected(file) {
    if (!file) {
      setStatus(t("s_choose_first"), false);
      $("image").focus();
      return;
    }
    previewOf(file);
    setStatus(t("s_reading"), true);
    $("scan-button").disabled = true;
    try {
      const otherSide = $("other_side").files[0] || null;
      scannedNames = [file.name || "photo", otherSide ? otherSide.name || "other side" : ""];
      // A file the browser cannot show (HEIC, TIFF, PDF): the server sends a preview of it,
      // which is shown, not kept in the JSON the page offers.
      const wantsPreview = !photoUrl;
      const result = await scanFile(file, options(), otherSide, wantsPreview);
      const served = result.images && result.images.photo;
      if (wantsPreview) delete result.images;
      // The result is of the side with the better reading: when that is the other side's
      // photo, its geometry is drawn over that photo.
      if (otherSide && result.other_side && result.other_side.photo === 1) {
        previewOf(otherSide);
      } else if (wantsPreview && served) {
        photoUrl = "data:" + served.mime_type + ";base64," + served.data_base64;
        $("photo").src = photoUrl;
      }
      show(result);
    } catch (error) {
      fail(error);
    } finally {
      $("scan-button").disabled = false;
    }
  }

  /** Reads the specimen photo the page serves, as if a person had chosen it. */
  async function scanSample() {
    $("sample-button").disabled = true;
    try {
      const response = await fetch(SAMPLE_URL);
      if (!response.ok) throw new Error(t("s_server", { status: response.status }));
      const blob = await response.blob();
      await scanSelected(new File([blob], "specimen-uto.jpg", { type: "image/jpeg" }));
    } catch (error) {
      fail(error);
    } finally {
      $("sample-button").disabled = false;
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

    $("sample-button").addEventListener("click", scanSample);
    $("copy-json").addEventListener("click", copyJson);
    $("download-json").addEventListener("click", downloadJson);
    $("scan-form").addEventListener("submit", (event) => {
      event.preventDefault();
      scanSelected($("image").files[0] || $("camera").files[0]);
    });
    // Choosing a file reads it at once; the button reads it again with new options.
    $("image").addEventListener("change", () => {
      if ($("image").files[0]) scanSelected($("image").files[0]);
    });
    // The other side of a card is read with the photo: at once when one is chosen already.
    $("other_side").addEventListener("change", () => {
      const other = $("other_side").files[0];
      $("other-side-name").textContent = other ? other.name : "";
      const photo = $("image").files[0] || $("camera").files[0];
      if (other && photo) scanSelected(photo);
    });
    // The camera (on phones; elsewhere another file picker) reads the same way.
    $("camera").addEventListener("change", () => {
      if ($("camera").files[0]) scanSelected($("camera").files[0]);
    });
    // A photo the browser cannot show after all is still read; the preview goes away.
    $("photo").addEventListener("error", () => {
      if (photoUrl) URL.revokeObjectURL(photoUrl);
      photoUrl = null;
      $("preview").hidden = true;
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
        setStatus(t("s_type_first"), false);
        $("mrz_text").focus();
        return;
      }
      if (photoUrl) URL.revokeObjectURL(photoUrl);
      photoUrl = null;
      setStatus(t("s_parsing"), true);
      try {
        const input = { text: text };
        const referenceDate = options().referenceDate;
        if (referenceDate) input.reference_date = referenceDate;
        show(await parseLines(input));
      } catch (error) {
        fail(error);
      }
    });

    $("printed-form").addEventListener("submit", (event) => {
      event.preventDefault();
      comparePrinted();
    });

    $("chip-form").addEventListener("submit", (event) => {
      event.preventDefault();
      checkChip($("chip_sod").files[0], Array.from($("chip_dgs").files));
    });
    const chipDrop = $("chip-drop");
    chipDrop.addEventListener("dragover", (event) => {
      event.preventDefault();
      chipDrop.classList.add("over");
    });
    chipDrop.addEventListener("dragleave", () => chipDrop.classList.remove("over"));
    chipDrop.addEventListener("drop", (event) => {
      event.preventDefault();
      chipDrop.classList.remove("over");
      const { sod, groups } = splitChipFiles(event.dataTransfer && event.dataTransfer.files);
      checkChip(sod, groups);
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
      return { content: [{ type: "text", text: error.detail || error.message }], isError: true };
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
            image_base64: { type: "string", description: "The photo (JPEG, PNG, WebP, TIFF, BMP, HEIC or a scanned PDF) as base64." },
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
