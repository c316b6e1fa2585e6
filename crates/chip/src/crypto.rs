//! Digests and signature checks: which algorithm an object identifier names, and verifying a
//! signature with a certificate's public key. The arithmetic is RustCrypto's (`rsa`, `ecdsa`
//! over `p256`, `p384`, `p521`, `bp256`, `bp384`); this module only maps identifiers to it.

use const_oid::ObjectIdentifier as Oid;
use const_oid::db::rfc5912;
use der::asn1::ObjectIdentifier;
use der::{Decode, Encode};
use ecdsa::signature::hazmat::PrehashVerifier;
use elliptic_curve::sec1::ToSec1Point;
use elliptic_curve::{CurveArithmetic, group::CurveAffine};
use rsa::pkcs1::DecodeRsaPublicKey;
use sha1::Sha1;
use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};
use spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};

/// A digest algorithm the LDS and CMS use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hash {
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl Hash {
    /// The algorithm an identifier names, or `None`.
    pub fn from_oid(oid: &Oid) -> Option<Hash> {
        Some(match *oid {
            rfc5912::ID_SHA_1 => Hash::Sha1,
            rfc5912::ID_SHA_224 => Hash::Sha224,
            rfc5912::ID_SHA_256 => Hash::Sha256,
            rfc5912::ID_SHA_384 => Hash::Sha384,
            rfc5912::ID_SHA_512 => Hash::Sha512,
            _ => return None,
        })
    }

    /// The name the result uses: `sha256`.
    pub fn name(self) -> &'static str {
        match self {
            Hash::Sha1 => "sha1",
            Hash::Sha224 => "sha224",
            Hash::Sha256 => "sha256",
            Hash::Sha384 => "sha384",
            Hash::Sha512 => "sha512",
        }
    }

    /// The digest of `data`.
    pub fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha1 => Sha1::digest(data).to_vec(),
            Hash::Sha224 => Sha224::digest(data).to_vec(),
            Hash::Sha256 => Sha256::digest(data).to_vec(),
            Hash::Sha384 => Sha384::digest(data).to_vec(),
            Hash::Sha512 => Sha512::digest(data).to_vec(),
        }
    }
}

/// What checking one signature came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureCheck {
    /// The signature is the key holder's over this message.
    Verified,
    /// It is not.
    Invalid,
    /// The algorithm, its parameters or the key's curve is one this build cannot check; the
    /// text names it.
    Unsupported(String),
}

/// The kind of key a certificate holds, for the report: `RSA 2048`, `ECDSA brainpoolP256r1`.
pub fn describe_key(spki: &SubjectPublicKeyInfoOwned) -> String {
    match spki.algorithm.oid {
        rfc5912::RSA_ENCRYPTION | rfc5912::ID_RSASSA_PSS => {
            match rsa::PublicKey::from_pkcs1_der(spki.subject_public_key.raw_bytes()) {
                Ok(key) => format!("RSA {}", rsa::traits::PublicKeyParts::n(&key).bit_width()),
                Err(_) => "RSA (unreadable key)".to_string(),
            }
        }
        rfc5912::ID_EC_PUBLIC_KEY => match curve_of(spki) {
            Some(curve) => format!("ECDSA {}", curve.name()),
            None => "ECDSA (unknown curve)".to_string(),
        },
        other => format!("unknown key algorithm {other}"),
    }
}

/// A signature algorithm's name for the report.
pub fn describe_signature_algorithm(algorithm: &AlgorithmIdentifierOwned) -> String {
    match const_oid::db::DB.by_oid(&algorithm.oid) {
        Some(name) => name.to_string(),
        None => algorithm.oid.to_string(),
    }
}

/// Checks `signature` over `message` with the key in `spki`, by `algorithm` (a certificate's
/// or a signer info's signature algorithm). `digest` is the signer info's digest algorithm,
/// which names the hash where the signature algorithm does not (`rsaEncryption`).
pub fn verify(
    spki: &SubjectPublicKeyInfoOwned,
    algorithm: &AlgorithmIdentifierOwned,
    digest: Option<Hash>,
    message: &[u8],
    signature: &[u8],
) -> SignatureCheck {
    let scheme = match Scheme::from_algorithm(algorithm, digest) {
        Ok(scheme) => scheme,
        Err(unsupported) => return SignatureCheck::Unsupported(unsupported),
    };
    match scheme {
        Scheme::Pkcs1v15(hash) => verify_rsa(spki, hash, None, message, signature),
        Scheme::Pss { hash, salt_len } => {
            verify_rsa(spki, hash, Some(salt_len), message, signature)
        }
        Scheme::Ecdsa { hash, plain } => verify_ecdsa(spki, hash, plain, message, signature),
    }
}

enum Scheme {
    Pkcs1v15(Hash),
    Pss {
        hash: Hash,
        salt_len: usize,
    },
    /// `plain`: the signature is r‖s (BSI TR-03111), not a DER sequence.
    Ecdsa {
        hash: Hash,
        plain: bool,
    },
}

/// `ecdsa-with-SHA1` (RFC 3279), which the generated database lacks.
const ECDSA_WITH_SHA1: Oid = Oid::new_unwrap("1.2.840.10045.4.1");

/// BSI TR-03111 `ecdsa-plain-signatures` (0.4.0.127.0.7.1.1.4.1).
const ECDSA_PLAIN_SHA1: Oid = Oid::new_unwrap("0.4.0.127.0.7.1.1.4.1.1");
const ECDSA_PLAIN_SHA224: Oid = Oid::new_unwrap("0.4.0.127.0.7.1.1.4.1.2");
const ECDSA_PLAIN_SHA256: Oid = Oid::new_unwrap("0.4.0.127.0.7.1.1.4.1.3");
const ECDSA_PLAIN_SHA384: Oid = Oid::new_unwrap("0.4.0.127.0.7.1.1.4.1.4");
const ECDSA_PLAIN_SHA512: Oid = Oid::new_unwrap("0.4.0.127.0.7.1.1.4.1.5");

impl Scheme {
    fn from_algorithm(
        algorithm: &AlgorithmIdentifierOwned,
        digest: Option<Hash>,
    ) -> Result<Scheme, String> {
        let needs_digest =
            || digest.ok_or_else(|| format!("{} without a digest algorithm", algorithm.oid));
        Ok(match algorithm.oid {
            rfc5912::RSA_ENCRYPTION => Scheme::Pkcs1v15(needs_digest()?),
            rfc5912::SHA_1_WITH_RSA_ENCRYPTION => Scheme::Pkcs1v15(Hash::Sha1),
            rfc5912::SHA_224_WITH_RSA_ENCRYPTION => Scheme::Pkcs1v15(Hash::Sha224),
            rfc5912::SHA_256_WITH_RSA_ENCRYPTION => Scheme::Pkcs1v15(Hash::Sha256),
            rfc5912::SHA_384_WITH_RSA_ENCRYPTION => Scheme::Pkcs1v15(Hash::Sha384),
            rfc5912::SHA_512_WITH_RSA_ENCRYPTION => Scheme::Pkcs1v15(Hash::Sha512),
            rfc5912::ID_RSASSA_PSS => pss_scheme(algorithm)?,
            ECDSA_WITH_SHA1 => Scheme::Ecdsa { hash: Hash::Sha1, plain: false },
            rfc5912::ECDSA_WITH_SHA_224 => Scheme::Ecdsa { hash: Hash::Sha224, plain: false },
            rfc5912::ECDSA_WITH_SHA_256 => Scheme::Ecdsa { hash: Hash::Sha256, plain: false },
            rfc5912::ECDSA_WITH_SHA_384 => Scheme::Ecdsa { hash: Hash::Sha384, plain: false },
            rfc5912::ECDSA_WITH_SHA_512 => Scheme::Ecdsa { hash: Hash::Sha512, plain: false },
            rfc5912::ID_EC_PUBLIC_KEY => Scheme::Ecdsa { hash: needs_digest()?, plain: false },
            ECDSA_PLAIN_SHA1 => Scheme::Ecdsa { hash: Hash::Sha1, plain: true },
            ECDSA_PLAIN_SHA224 => Scheme::Ecdsa { hash: Hash::Sha224, plain: true },
            ECDSA_PLAIN_SHA256 => Scheme::Ecdsa { hash: Hash::Sha256, plain: true },
            ECDSA_PLAIN_SHA384 => Scheme::Ecdsa { hash: Hash::Sha384, plain: true },
            ECDSA_PLAIN_SHA512 => Scheme::Ecdsa { hash: Hash::Sha512, plain: true },
            other => return Err(format!("signature algorithm {}", name_of(&other))),
        })
    }
}

fn name_of(oid: &ObjectIdentifier) -> String {
    match const_oid::db::DB.by_oid(oid) {
        Some(name) => format!("{name} ({oid})"),
        None => oid.to_string(),
    }
}

/// `RSASSA-PSS-params` (RFC 8017 A.2.3). Declared here rather than taken from `pkcs1`, whose
/// salt length is a byte: a signer using the largest salt of a 3072-bit key writes 334.
#[derive(der::Sequence)]
struct PssParams {
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    hash: Option<AlgorithmIdentifierOwned>,
    #[asn1(context_specific = "1", tag_mode = "EXPLICIT", optional = "true")]
    mask_gen: Option<AlgorithmIdentifierOwned>,
    #[asn1(context_specific = "2", tag_mode = "EXPLICIT", optional = "true")]
    salt_len: Option<u32>,
    #[asn1(context_specific = "3", tag_mode = "EXPLICIT", optional = "true")]
    trailer_field: Option<u8>,
}

/// `id-mgf1` (RFC 8017).
const ID_MGF1: Oid = Oid::new_unwrap("1.2.840.113549.1.1.8");

/// The PSS hash, MGF1 with the same hash, and the salt length; defaults SHA-1 and 20.
fn pss_scheme(algorithm: &AlgorithmIdentifierOwned) -> Result<Scheme, String> {
    let params = match &algorithm.parameters {
        Some(any) => {
            let der = any.to_der().map_err(|_| "unreadable RSASSA-PSS parameters".to_string())?;
            PssParams::from_der(&der).map_err(|_| "unreadable RSASSA-PSS parameters".to_string())?
        }
        None => PssParams { hash: None, mask_gen: None, salt_len: None, trailer_field: None },
    };
    let hash_oid = params.hash.as_ref().map_or(rfc5912::ID_SHA_1, |h| h.oid);
    let hash = Hash::from_oid(&hash_oid)
        .ok_or_else(|| format!("RSASSA-PSS with hash {}", name_of(&hash_oid)))?;
    let mgf_hash = match &params.mask_gen {
        None => rfc5912::ID_SHA_1,
        Some(mgf) if mgf.oid == ID_MGF1 => mgf
            .parameters
            .as_ref()
            .and_then(|p| p.decode_as::<AlgorithmIdentifierOwned>().ok())
            .map_or(rfc5912::ID_SHA_1, |h| h.oid),
        Some(mgf) => return Err(format!("RSASSA-PSS with mask generation {}", name_of(&mgf.oid))),
    };
    if mgf_hash != hash_oid {
        return Err(format!(
            "RSASSA-PSS with MGF1 over {} and hash {}",
            name_of(&mgf_hash),
            name_of(&hash_oid)
        ));
    }
    if params.trailer_field.is_some_and(|t| t != 1) {
        return Err("RSASSA-PSS with a trailer field other than 1".into());
    }
    let salt_len = usize::try_from(params.salt_len.unwrap_or(20)).map_err(|_| "salt length")?;
    Ok(Scheme::Pss { hash, salt_len })
}

fn verify_rsa(
    spki: &SubjectPublicKeyInfoOwned,
    hash: Hash,
    pss_salt: Option<usize>,
    message: &[u8],
    signature: &[u8],
) -> SignatureCheck {
    if !matches!(spki.algorithm.oid, rfc5912::RSA_ENCRYPTION | rfc5912::ID_RSASSA_PSS) {
        return SignatureCheck::Unsupported(
            "an RSA signature made with a key that is not RSA".into(),
        );
    }
    let Ok(key) = rsa::PublicKey::from_pkcs1_der(spki.subject_public_key.raw_bytes()) else {
        return SignatureCheck::Unsupported("an unreadable RSA public key".into());
    };
    let hashed = hash.digest(message);
    let outcome = match (pss_salt, hash) {
        (None, Hash::Sha1) => key.verify(rsa::Pkcs1v15Sign::new::<Sha1>(), &hashed, signature),
        (None, Hash::Sha224) => key.verify(rsa::Pkcs1v15Sign::new::<Sha224>(), &hashed, signature),
        (None, Hash::Sha256) => key.verify(rsa::Pkcs1v15Sign::new::<Sha256>(), &hashed, signature),
        (None, Hash::Sha384) => key.verify(rsa::Pkcs1v15Sign::new::<Sha384>(), &hashed, signature),
        (None, Hash::Sha512) => key.verify(rsa::Pkcs1v15Sign::new::<Sha512>(), &hashed, signature),
        (Some(salt), Hash::Sha1) => {
            key.verify(rsa::Pss::<Sha1>::new_with_salt(salt), &hashed, signature)
        }
        (Some(salt), Hash::Sha224) => {
            key.verify(rsa::Pss::<Sha224>::new_with_salt(salt), &hashed, signature)
        }
        (Some(salt), Hash::Sha256) => {
            key.verify(rsa::Pss::<Sha256>::new_with_salt(salt), &hashed, signature)
        }
        (Some(salt), Hash::Sha384) => {
            key.verify(rsa::Pss::<Sha384>::new_with_salt(salt), &hashed, signature)
        }
        (Some(salt), Hash::Sha512) => {
            key.verify(rsa::Pss::<Sha512>::new_with_salt(salt), &hashed, signature)
        }
    };
    if outcome.is_ok() { SignatureCheck::Verified } else { SignatureCheck::Invalid }
}

/// The curves this build verifies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Curve {
    P256,
    P384,
    P521,
    BrainpoolP256r1,
    BrainpoolP384r1,
}

const BRAINPOOL_P256R1: Oid = Oid::new_unwrap("1.3.36.3.3.2.8.1.1.7");
const BRAINPOOL_P384R1: Oid = Oid::new_unwrap("1.3.36.3.3.2.8.1.1.11");

impl Curve {
    const ALL: [Curve; 5] =
        [Curve::P256, Curve::P384, Curve::P521, Curve::BrainpoolP256r1, Curve::BrainpoolP384r1];

    fn name(self) -> &'static str {
        match self {
            Curve::P256 => "P-256",
            Curve::P384 => "P-384",
            Curve::P521 => "P-521",
            Curve::BrainpoolP256r1 => "brainpoolP256r1",
            Curve::BrainpoolP384r1 => "brainpoolP384r1",
        }
    }

    fn from_oid(oid: &Oid) -> Option<Curve> {
        Some(match *oid {
            rfc5912::SECP_256_R_1 => Curve::P256,
            rfc5912::SECP_384_R_1 => Curve::P384,
            rfc5912::SECP_521_R_1 => Curve::P521,
            BRAINPOOL_P256R1 => Curve::BrainpoolP256r1,
            BRAINPOOL_P384R1 => Curve::BrainpoolP384r1,
            _ => return None,
        })
    }

    /// The generator, SEC1-encoded uncompressed and compressed.
    fn generator(self) -> [Vec<u8>; 2] {
        match self {
            Curve::P256 => generator_of::<p256::NistP256>(),
            Curve::P384 => generator_of::<p384::NistP384>(),
            Curve::P521 => generator_of::<p521::NistP521>(),
            Curve::BrainpoolP256r1 => generator_of::<bp256::BrainpoolP256r1>(),
            Curve::BrainpoolP384r1 => generator_of::<bp384::BrainpoolP384r1>(),
        }
    }
}

fn generator_of<C>() -> [Vec<u8>; 2]
where
    C: CurveArithmetic,
    C::AffinePoint: ToSec1Point<C>,
    elliptic_curve::FieldBytesSize<C>: elliptic_curve::sec1::ModulusSize,
{
    let g = C::AffinePoint::generator();
    [g.to_sec1_point(false).as_bytes().to_vec(), g.to_sec1_point(true).as_bytes().to_vec()]
}

/// The curve of an EC public key: named by its identifier, or given by explicit domain
/// parameters (common in CSCA and document signer certificates), recognised by the generator.
fn curve_of(spki: &SubjectPublicKeyInfoOwned) -> Option<Curve> {
    let params = spki.algorithm.parameters.as_ref()?;
    if let Ok(oid) = params.decode_as::<Oid>() {
        return Curve::from_oid(&oid);
    }
    // ECParameters ::= SEQUENCE { version, fieldID, curve, base ECPoint, order, cofactor OPTIONAL }
    let fields = crate::raw::children(params.value()).ok()?;
    let base = fields.get(3)?;
    Curve::ALL
        .into_iter()
        .find(|curve| curve.generator().iter().any(|g| g.as_slice() == base.value()))
}

fn verify_ecdsa(
    spki: &SubjectPublicKeyInfoOwned,
    hash: Hash,
    plain: bool,
    message: &[u8],
    signature: &[u8],
) -> SignatureCheck {
    if spki.algorithm.oid != rfc5912::ID_EC_PUBLIC_KEY {
        return SignatureCheck::Unsupported(
            "an ECDSA signature made with a key that is not EC".into(),
        );
    }
    let Some(curve) = curve_of(spki) else {
        return SignatureCheck::Unsupported(
            "an EC key on a curve this build does not verify".into(),
        );
    };
    let point = spki.subject_public_key.raw_bytes();
    let prehash = hash.digest(message);
    let verified = match curve {
        Curve::P256 => ecdsa_verify::<p256::NistP256>(point, &prehash, signature, plain),
        Curve::P384 => ecdsa_verify::<p384::NistP384>(point, &prehash, signature, plain),
        Curve::P521 => ecdsa_verify::<p521::NistP521>(point, &prehash, signature, plain),
        Curve::BrainpoolP256r1 => {
            ecdsa_verify::<bp256::BrainpoolP256r1>(point, &prehash, signature, plain)
        }
        Curve::BrainpoolP384r1 => {
            ecdsa_verify::<bp384::BrainpoolP384r1>(point, &prehash, signature, plain)
        }
    };
    if verified { SignatureCheck::Verified } else { SignatureCheck::Invalid }
}

fn ecdsa_verify<C>(point: &[u8], prehash: &[u8], signature: &[u8], plain: bool) -> bool
where
    C: ecdsa::EcdsaCurve + CurveArithmetic,
    C::AffinePoint: elliptic_curve::sec1::FromSec1Point<C> + ToSec1Point<C>,
    elliptic_curve::FieldBytesSize<C>: elliptic_curve::sec1::ModulusSize,
    ecdsa::der::MaxSize<C>: elliptic_curve::array::ArraySize,
    <elliptic_curve::FieldBytesSize<C> as core::ops::Add>::Output:
        core::ops::Add<ecdsa::der::MaxOverhead> + elliptic_curve::array::ArraySize,
{
    let Ok(key) = ecdsa::VerifyingKey::<C>::from_sec1_bytes(point) else { return false };
    // Some signers write r‖s under the X9.62 identifiers, and some DER under the plain ones.
    let parsed = if plain {
        ecdsa::Signature::<C>::from_slice(signature)
            .or_else(|_| ecdsa::Signature::<C>::from_der(signature))
    } else {
        ecdsa::Signature::<C>::from_der(signature)
            .or_else(|_| ecdsa::Signature::<C>::from_slice(signature))
    };
    let Ok(parsed) = parsed else { return false };
    key.verify_prehash(prehash, &parsed).is_ok()
}
