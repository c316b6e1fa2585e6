//! Active Authentication (ICAO 9303-11 §6.1): the chip signs a challenge the reader chose with
//! the private key whose public half is in DG15. A chip that answers holds that key, so (with
//! DG15 vouched for by EF.SOD) it is the chip the issuer made, not a copy of its data.
//!
//! RSA answers with ISO/IEC 9796-2 digital signature scheme 1 (partial message recovery); the
//! trailer names the hash. ECDSA answers with a plain signature (BSI TR-03111) over the
//! challenge, hashed as DG14's ActiveAuthenticationInfo says (SHA-256 when it does not).

use const_oid::ObjectIdentifier as Oid;
use const_oid::db::rfc5912;
use der::Decode;
use num_bigint::BigUint;
use spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};

use crate::crypto::{self, Hash, SignatureCheck};
use crate::report::{ActiveAuthentication, ActiveAuthenticationStatus};

/// The longest challenge accepted (ICAO's is 8 bytes).
pub const MAX_CHALLENGE: usize = 64;
/// The longest answer accepted (an RSA 8192 signature is 1024 bytes).
pub const MAX_RESPONSE: usize = 1024;

/// `id-AA` (ICAO 9303-11): DG14's ActiveAuthenticationInfo.
const ID_AA: Oid = Oid::new_unwrap("2.23.136.1.1.5");
/// BSI TR-03111 `ecdsa-plain-SHA256`, the hash when DG14 names none.
const ECDSA_PLAIN_SHA256: Oid = Oid::new_unwrap("0.4.0.127.0.7.1.1.4.1.3");

/// What a reader app sends: the challenge it gave the chip and the chip's answer.
#[derive(Debug, Clone, Copy)]
pub struct AaChallenge<'a> {
    pub challenge: &'a [u8],
    pub response: &'a [u8],
}

/// Checks the chip's answer with DG15's key (`dg15` is the whole data group file); `dg14`
/// names the ECDSA hash. Whether DG15 is the one EF.SOD signs is the caller's to check.
pub fn check(dg15: &[u8], dg14: Option<&[u8]>, aa: &AaChallenge<'_>) -> ActiveAuthentication {
    let outcome = |status, algorithm: &str, reason: Option<String>| ActiveAuthentication {
        status,
        algorithm: Some(algorithm.to_owned()),
        reason,
    };
    let Some(spki) = public_key(dg15) else {
        return ActiveAuthentication {
            status: ActiveAuthenticationStatus::Failed,
            algorithm: None,
            reason: Some("DG15 does not hold a public key".into()),
        };
    };
    match spki.algorithm.oid {
        rfc5912::RSA_ENCRYPTION => match iso9796_2(&spki, aa) {
            Ok(hash) => outcome(
                ActiveAuthenticationStatus::Verified,
                &format!("RSA ISO/IEC 9796-2 scheme 1 with {}", hash.name()),
                None,
            ),
            Err(reason) => outcome(
                ActiveAuthenticationStatus::Failed,
                "RSA ISO/IEC 9796-2 scheme 1",
                Some(reason),
            ),
        },
        rfc5912::ID_EC_PUBLIC_KEY => {
            let oid = dg14.and_then(aa_signature_algorithm).unwrap_or(ECDSA_PLAIN_SHA256);
            let algorithm = AlgorithmIdentifierOwned { oid, parameters: None };
            let name = format!(
                "ECDSA {} with {}",
                crypto::curve_of(&spki).map_or("(unknown curve)", |c| c.name()),
                crypto::ecdsa_hash(oid).map_or_else(|| oid.to_string(), |h| h.name().to_owned())
            );
            match crypto::verify(&spki, &algorithm, None, aa.challenge, aa.response) {
                SignatureCheck::Verified => {
                    outcome(ActiveAuthenticationStatus::Verified, &name, None)
                }
                SignatureCheck::Invalid => outcome(
                    ActiveAuthenticationStatus::Failed,
                    &name,
                    Some("the answer is not DG15's key's signature of the challenge".into()),
                ),
                SignatureCheck::Unsupported(what) => {
                    outcome(ActiveAuthenticationStatus::Unsupported, &name, Some(what))
                }
            }
        }
        other => ActiveAuthentication {
            status: ActiveAuthenticationStatus::Unsupported,
            algorithm: Some(other.to_string()),
            reason: Some(format!("DG15 holds a key of algorithm {other}")),
        },
    }
}

/// DG15 (`6F L SubjectPublicKeyInfo`)'s key.
fn public_key(dg15: &[u8]) -> Option<SubjectPublicKeyInfoOwned> {
    let (outer, _) = crate::ber::parse(dg15).ok()?;
    let der = crate::ber::to_der(outer.content).ok()?;
    SubjectPublicKeyInfoOwned::from_der(&der).ok()
}

/// The signature algorithm DG14's ActiveAuthenticationInfo names
/// (`SEQUENCE { id-AA, version, signatureAlgorithm }` among its SecurityInfos).
fn aa_signature_algorithm(dg14: &[u8]) -> Option<Oid> {
    let (outer, _) = crate::ber::parse(dg14).ok()?;
    let (set, _) = crate::ber::parse(outer.content).ok()?;
    crate::ber::children(set.content).ok()?.into_iter().find_map(|info| {
        let parts = crate::ber::children(info.content).ok()?;
        let oid = |element: &crate::ber::Element<'_>| Oid::from_der(element.whole).ok();
        (oid(parts.first()?)? == ID_AA).then(|| oid(parts.get(2)?))?
    })
}

/// ISO/IEC 9796-2 scheme 1 with partial message recovery: the answer, raised to the public
/// exponent, is `6A ‖ M1 ‖ H ‖ trailer` (or n minus that), where H is the hash the trailer
/// names of M1 followed by the challenge. Returns the hash.
fn iso9796_2(spki: &SubjectPublicKeyInfoOwned, aa: &AaChallenge<'_>) -> Result<Hash, String> {
    let key = crate::raw::children(spki.subject_public_key.raw_bytes()).ok().and_then(|sequence| {
        let sequence = sequence.first()?;
        let parts = crate::raw::children(sequence.value()).ok()?;
        let [n, e] = parts.as_slice() else { return None };
        Some((BigUint::from_bytes_be(n.value()), BigUint::from_bytes_be(e.value())))
    });
    let Some((n, e)) = key else { return Err("DG15's RSA key is unreadable".into()) };
    let k = usize::try_from(n.bits().div_ceil(8)).map_err(|_| "DG15's RSA key is too large")?;
    let s = BigUint::from_bytes_be(aa.response);
    if n.bits() < 512 || s >= n || aa.response.len() > k {
        return Err("the answer is not a signature of DG15's key".into());
    }
    let j = s.modpow(&e, &n);
    // The signer may have sent the smaller of J^d and n - J^d: the right one ends in 0xC.
    let j = if j.to_bytes_le().first().is_some_and(|b| b & 0x0F == 0x0C) { j } else { &n - j };
    let bytes = j.to_bytes_be();
    if bytes.len() != k {
        return Err("the recovered message has the wrong length".into());
    }
    let (hash, trailer) = match bytes[k - 1] {
        0xBC => (Hash::Sha1, 1),
        0xCC => match bytes[k - 2] {
            0x33 => (Hash::Sha1, 2),
            0x34 => (Hash::Sha256, 2),
            0x35 => (Hash::Sha512, 2),
            0x36 => (Hash::Sha384, 2),
            0x38 => (Hash::Sha224, 2),
            other => return Err(format!("the trailer names hash {other:#04X}, not one ICAO uses")),
        },
        _ => return Err("the answer is not a signature of DG15's key (no trailer)".into()),
    };
    let h_len = hash.digest(b"").len();
    if bytes[0] != 0x6A || k < 1 + h_len + trailer {
        return Err("the answer is not a signature of DG15's key (header)".into());
    }
    let m1 = &bytes[1..k - h_len - trailer];
    let h = &bytes[k - h_len - trailer..k - trailer];
    let mut message = m1.to_vec();
    message.extend_from_slice(aa.challenge);
    if hash.digest(&message) == h {
        Ok(hash)
    } else {
        Err("the answer is DG15's key's, but not over this challenge".into())
    }
}
