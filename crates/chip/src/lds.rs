//! The Logical Data Structure (ICAO 9303-10): EF.SOD and the data groups it hashes.

use std::collections::BTreeMap;

use const_oid::ObjectIdentifier as Oid;
use der::asn1::{OctetString, PrintableString};
use der::{Decode, Sequence};
use spki::AlgorithmIdentifierOwned;

use crate::crypto::Hash;
use crate::error::ChipError;
use crate::signed::Signed;

/// `id-icao-ldsSecurityObject` (ICAO 9303-10).
pub const ID_LDS_SECURITY_OBJECT: Oid = Oid::new_unwrap("2.23.136.1.1.1");

/// The most data groups a request may carry (DG1 to DG16).
pub const MAX_DATA_GROUPS: usize = 16;

/// `LDSSecurityObject ::= SEQUENCE { version, hashAlgorithm, dataGroupHashValues, ldsVersionInfo OPTIONAL }`
#[derive(Sequence)]
struct LdsSecurityObject {
    version: u8,
    hash_algorithm: AlgorithmIdentifierOwned,
    data_group_hash_values: Vec<DataGroupHash>,
    #[asn1(optional = "true")]
    lds_version_info: Option<LdsVersionInfo>,
}

#[derive(Sequence)]
struct DataGroupHash {
    data_group_number: u8,
    data_group_hash_value: OctetString,
}

#[derive(Sequence)]
struct LdsVersionInfo {
    lds_version: PrintableString,
    unicode_version: PrintableString,
}

/// A parsed EF.SOD.
pub struct Sod {
    pub signed: Signed,
    pub hash: Result<Hash, Oid>,
    /// Data group number → hash, as signed.
    pub hashes: BTreeMap<u8, Vec<u8>>,
    pub lds_version: Option<String>,
    pub unicode_version: Option<String>,
}

impl Sod {
    /// Parses EF.SOD as read from the chip (`[APPLICATION 23]` around a ContentInfo), or the
    /// ContentInfo alone.
    pub fn parse(bytes: &[u8]) -> Result<Sod, ChipError> {
        let bad = |reason: String| ChipError::Malformed { what: "EF.SOD", reason };
        let Some(&first) = bytes.first() else {
            return Err(bad("empty".into()));
        };
        // The files of one chip are easily mixed up: say which one this is.
        if let Some(number) = data_group_number(first) {
            return Err(bad(format!(
                "this file is EF.DG{number} (tag {first:#04X}), not EF.SOD (tag 0x77): give it \
                 as a data group"
            )));
        }
        if first == 0x60 {
            return Err(bad("this file is EF.COM (tag 0x60), not EF.SOD (tag 0x77)".into()));
        }
        // BER: CMS lets a signer use indefinite lengths, and some states' EF.SODs do.
        let (outer, rest) = crate::ber::parse(bytes).map_err(|e| bad(e.to_string()))?;
        if !is_padding(rest) {
            return Err(bad("bytes after the end of EF.SOD".into()));
        }
        let content_info = if bytes[0] == 0x77 {
            if !outer.is(0x77) {
                return Err(bad("not an EF.SOD".into()));
            }
            let (inner, rest) = crate::ber::parse(outer.content).map_err(|e| bad(e.to_string()))?;
            if !rest.is_empty() {
                return Err(bad("bytes after the ContentInfo inside EF.SOD".into()));
            }
            inner.whole
        } else {
            outer.whole
        };
        let signed = Signed::parse("EF.SOD", content_info)?;
        if signed.content_type != ID_LDS_SECURITY_OBJECT {
            return Err(bad(format!(
                "signed content {} is not an LDS security object",
                signed.content_type
            )));
        }
        let lds = crate::ber::to_der(&signed.content)
            .map_err(|e| e.to_string())
            .and_then(|der| LdsSecurityObject::from_der(&der).map_err(|e| e.to_string()))
            .map_err(|e| bad(format!("LDS security object: {e}")))?;
        let mut hashes = BTreeMap::new();
        for entry in lds.data_group_hash_values {
            if !(1..=16).contains(&entry.data_group_number) {
                return Err(bad(format!("hash for data group {}", entry.data_group_number)));
            }
            hashes.insert(
                entry.data_group_number,
                entry.data_group_hash_value.into_bytes().into_vec(),
            );
        }
        let hash = Hash::from_oid(&lds.hash_algorithm.oid).ok_or(lds.hash_algorithm.oid);
        let (lds_version, unicode_version) = match lds.lds_version_info {
            Some(info) => {
                (Some(info.lds_version.to_string()), Some(info.unicode_version.to_string()))
            }
            None => (None, None),
        };
        Ok(Sod { signed, hash, hashes, lds_version, unicode_version })
    }
}

/// Files read from a chip are sometimes padded to a block: zeros or `FF`s after the element.
fn is_padding(rest: &[u8]) -> bool {
    rest.iter().all(|&b| b == 0 || b == 0xFF)
}

/// A data group file (EF.DG1 … EF.DG16), identified by its tag.
pub struct DataGroup<'a> {
    pub number: u8,
    pub bytes: &'a [u8],
}

/// The data group number a file's first byte names (ICAO 9303-10 table 34).
pub fn data_group_number(tag: u8) -> Option<u8> {
    Some(match tag {
        0x61 => 1,
        0x75 => 2,
        0x63 => 3,
        0x76 => 4,
        0x65 => 5,
        0x66 => 6,
        0x67 => 7,
        0x68 => 8,
        0x69 => 9,
        0x6A => 10,
        0x6B => 11,
        0x6C => 12,
        0x6D => 13,
        0x6E => 14,
        0x6F => 15,
        0x70 => 16,
        _ => return None,
    })
}

/// Identifies each supplied file; `index` in errors counts from 1 in the order given.
pub fn identify<'a>(files: &[&'a [u8]]) -> Result<Vec<DataGroup<'a>>, ChipError> {
    if files.len() > MAX_DATA_GROUPS {
        return Err(ChipError::TooManyDataGroups { given: files.len(), limit: MAX_DATA_GROUPS });
    }
    let mut groups: Vec<DataGroup<'a>> = Vec::new();
    for (i, bytes) in files.iter().enumerate() {
        let index = i + 1;
        let first = *bytes.first().ok_or(ChipError::DataGroup { index, reason: "empty".into() })?;
        let number = data_group_number(first).ok_or_else(|| ChipError::DataGroup {
            index,
            reason: format!("first byte {first:#04X} is not the tag of a data group (DG1 is 0x61)"),
        })?;
        let (_, rest) = crate::ber::parse(bytes)
            .map_err(|e| ChipError::DataGroup { index, reason: format!("DG{number}: {e}") })?;
        if !is_padding(rest) {
            return Err(ChipError::DataGroup {
                index,
                reason: format!("DG{number}: bytes after its end"),
            });
        }
        if groups.iter().any(|g| g.number == number) {
            return Err(ChipError::DataGroup { index, reason: format!("DG{number} given twice") });
        }
        groups.push(DataGroup { number, bytes });
    }
    Ok(groups)
}

/// The MRZ in DG1 (`61 L 5F1F L text`), split into its lines by length (TD1 3×30, TD2 2×36,
/// TD3 2×44).
pub fn dg1_mrz(dg1: &[u8]) -> Result<Vec<String>, String> {
    let (outer, _) = crate::ber::parse(dg1).map_err(|e| e.to_string())?;
    let inner = crate::ber::children(outer.content).map_err(|e| e.to_string())?;
    let mrz =
        inner.iter().find(|e| e.tag == [0x5F, 0x1F]).ok_or("DG1 without the MRZ element (5F1F)")?;
    let text = std::str::from_utf8(mrz.content).map_err(|_| "DG1's MRZ is not text".to_string())?;
    let width = match text.len() {
        90 => 30,
        72 => 36,
        88 => 44,
        n => return Err(format!("DG1's MRZ has {n} characters, not 90, 72 or 88")),
    };
    Ok(text.as_bytes().chunks(width).map(|c| String::from_utf8_lossy(c).into_owned()).collect())
}
