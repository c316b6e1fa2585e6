//! Issuing state and nationality codes: ISO 3166-1 alpha-3 plus the ICAO special codes.

/// ISO 3166-1 alpha-3 country codes, sorted for binary search.
const ISO_3166_ALPHA3: &[&str] = &[
    "ABW", "AFG", "AGO", "AIA", "ALA", "ALB", "AND", "ARE", "ARG", "ARM", "ASM", "ATA", "ATF",
    "ATG", "AUS", "AUT", "AZE", "BDI", "BEL", "BEN", "BES", "BFA", "BGD", "BGR", "BHR", "BHS",
    "BIH", "BLM", "BLR", "BLZ", "BMU", "BOL", "BRA", "BRB", "BRN", "BTN", "BVT", "BWA", "CAF",
    "CAN", "CCK", "CHE", "CHL", "CHN", "CIV", "CMR", "COD", "COG", "COK", "COL", "COM", "CPV",
    "CRI", "CUB", "CUW", "CXR", "CYM", "CYP", "CZE", "DEU", "DJI", "DMA", "DNK", "DOM", "DZA",
    "ECU", "EGY", "ERI", "ESH", "ESP", "EST", "ETH", "FIN", "FJI", "FLK", "FRA", "FRO", "FSM",
    "GAB", "GBR", "GEO", "GGY", "GHA", "GIB", "GIN", "GLP", "GMB", "GNB", "GNQ", "GRC", "GRD",
    "GRL", "GTM", "GUF", "GUM", "GUY", "HKG", "HMD", "HND", "HRV", "HTI", "HUN", "IDN", "IMN",
    "IND", "IOT", "IRL", "IRN", "IRQ", "ISL", "ISR", "ITA", "JAM", "JEY", "JOR", "JPN", "KAZ",
    "KEN", "KGZ", "KHM", "KIR", "KNA", "KOR", "KWT", "LAO", "LBN", "LBR", "LBY", "LCA", "LIE",
    "LKA", "LSO", "LTU", "LUX", "LVA", "MAC", "MAF", "MAR", "MCO", "MDA", "MDG", "MDV", "MEX",
    "MHL", "MKD", "MLI", "MLT", "MMR", "MNE", "MNG", "MNP", "MOZ", "MRT", "MSR", "MTQ", "MUS",
    "MWI", "MYS", "MYT", "NAM", "NCL", "NER", "NFK", "NGA", "NIC", "NIU", "NLD", "NOR", "NPL",
    "NRU", "NZL", "OMN", "PAK", "PAN", "PCN", "PER", "PHL", "PLW", "PNG", "POL", "PRI", "PRK",
    "PRT", "PRY", "PSE", "PYF", "QAT", "REU", "ROU", "RUS", "RWA", "SAU", "SDN", "SEN", "SGP",
    "SGS", "SHN", "SJM", "SLB", "SLE", "SLV", "SMR", "SOM", "SPM", "SRB", "SSD", "STP", "SUR",
    "SVK", "SVN", "SWE", "SWZ", "SXM", "SYC", "SYR", "TCA", "TCD", "TGO", "THA", "TJK", "TKL",
    "TKM", "TLS", "TON", "TTO", "TUN", "TUR", "TUV", "TWN", "TZA", "UGA", "UKR", "UMI", "URY",
    "USA", "UZB", "VAT", "VCT", "VEN", "VGB", "VIR", "VNM", "VUT", "WLF", "WSM", "YEM", "ZAF",
    "ZMB", "ZWE",
];

/// ICAO special codes (Doc 9303 Part 3 §5) with what they stand for.
const ICAO_SPECIAL: &[(&str, &str)] = &[
    ("D", "Germany"),
    ("EUE", "European Union"),
    ("GBD", "British Overseas Territories Citizen"),
    ("GBN", "British National (Overseas)"),
    ("GBO", "British Overseas Citizen"),
    ("GBP", "British Protected Person"),
    ("GBS", "British Subject"),
    ("RKS", "Kosovo"),
    ("UNA", "United Nations specialized agency"),
    ("UNK", "United Nations Interim Administration Mission in Kosovo"),
    ("UNO", "United Nations"),
    ("XBA", "African Development Bank"),
    ("XCC", "Caribbean Community"),
    ("XCE", "Council of Europe"),
    ("XCO", "Common Market for Eastern and Southern Africa"),
    ("XDC", "Southern African Development Community"),
    ("XEC", "Economic Community of West African States"),
    ("XES", "Organisation of Eastern Caribbean States"),
    ("XIM", "African Export-Import Bank"),
    ("XKX", "Kosovo"),
    ("XMP", "Parliamentary Assembly of the Mediterranean"),
    ("XOM", "Sovereign Military Order of Malta"),
    ("XPO", "INTERPOL"),
    ("XXA", "Stateless person (1954 Convention)"),
    ("XXB", "Refugee (1951 Convention)"),
    ("XXC", "Refugee (other)"),
    ("XXX", "Unspecified nationality"),
];

/// Codes used on specimens and in the standard's examples.
const SPECIMEN: &[&str] = &["UTO", "YTO"];

/// Codes withdrawn from ISO 3166-1 that still appear on documents in circulation.
const DEPRECATED: &[&str] = &["ANT", "NTZ"];

/// Codes that name the same issuer, first one canonical.
const EQUIVALENT: &[(&str, &str)] = &[("DEU", "D"), ("RKS", "XKX")];

/// What kind of code an issuer or nationality code is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum CodeKind {
    /// An ISO 3166-1 alpha-3 country code.
    Iso3166,
    /// An ICAO special code (organisations, British nationality classes, `D`, stateless...).
    IcaoSpecial,
    /// A code used only on specimens (`UTO`, `YTO`).
    Specimen,
    /// A withdrawn code still seen on documents (`ANT`, `NTZ`).
    Deprecated,
    /// Not a known code: possibly a misread, since no check digit covers these cells.
    Unknown,
}

/// A classified issuer or nationality code.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CodeInfo {
    /// The code as printed, fillers removed (`D` for `D<<`).
    pub code: String,
    /// The code to compare with: `DEU` for `D`, `RKS` for `XKX`, otherwise the code itself.
    pub canonical: String,
    /// What kind of code it is.
    pub kind: CodeKind,
    /// What an ICAO special code stands for.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub meaning: Option<&'static str>,
}

/// Whether an issuer or nationality field, its cells as printed, holds a known code. Codes
/// are written from the field's first cell and padded with fillers at the end (`D<<`); a
/// filler before or inside the letters fits no code, however the letters classify.
pub(crate) fn known_as_printed(cells: &str) -> bool {
    let code = cells.trim_end_matches('<');
    !code.is_empty() && !code.contains('<') && classify(code).kind != CodeKind::Unknown
}

/// Classifies a printed code (fillers already removed).
pub fn classify(code: &str) -> CodeInfo {
    let special = ICAO_SPECIAL.iter().find(|(special, _)| *special == code);
    let kind = if special.is_some() {
        CodeKind::IcaoSpecial
    } else if ISO_3166_ALPHA3.binary_search(&code).is_ok() {
        CodeKind::Iso3166
    } else if SPECIMEN.contains(&code) {
        CodeKind::Specimen
    } else if DEPRECATED.contains(&code) {
        CodeKind::Deprecated
    } else {
        CodeKind::Unknown
    };
    CodeInfo {
        code: code.to_owned(),
        canonical: canonical(code).to_owned(),
        kind,
        meaning: special.map(|(_, meaning)| *meaning),
    }
}

/// The canonical form of a code under the ICAO equivalences (`D` → `DEU`, `XKX` → `RKS`).
pub fn canonical(code: &str) -> &str {
    let code = code.trim_end_matches('<');
    EQUIVALENT.iter().find(|(_, alias)| *alias == code).map_or(code, |(canonical, _)| canonical)
}

/// Whether two issuer or nationality codes name the same state or organisation.
pub fn codes_equivalent(a: &str, b: &str) -> bool {
    canonical(a) == canonical(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_table_is_sorted_and_unique() {
        assert!(ISO_3166_ALPHA3.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(ISO_3166_ALPHA3.iter().all(|code| code.len() == 3));
    }

    #[test]
    fn a_code_is_known_only_as_codes_are_printed() {
        for known in ["UTO", "D<<", "XPO", "EUE"] {
            assert!(known_as_printed(known), "{known}");
        }
        for unknown in ["<D<", "<<D", "U<O", "<<<", "I3Z", "TUX"] {
            assert!(!known_as_printed(unknown), "{unknown}");
        }
    }

    #[test]
    fn germany_and_kosovo_equivalences() {
        assert!(codes_equivalent("D", "DEU"));
        assert!(codes_equivalent("D<<", "DEU"));
        assert!(codes_equivalent("XKX", "RKS"));
        assert!(!codes_equivalent("DEU", "DNK"));
        assert_eq!(classify("D").canonical, "DEU");
        assert_eq!(classify("D").kind, CodeKind::IcaoSpecial);
    }

    #[test]
    fn kinds() {
        assert_eq!(classify("FRA").kind, CodeKind::Iso3166);
        assert_eq!(classify("XXA").kind, CodeKind::IcaoSpecial);
        assert_eq!(classify("UTO").kind, CodeKind::Specimen);
        assert_eq!(classify("ANT").kind, CodeKind::Deprecated);
        assert_eq!(classify("UT0").kind, CodeKind::Unknown);
    }
}
