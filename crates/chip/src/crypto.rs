//! Digests and signature checks: which algorithm an object identifier names, and verifying a
//! signature with a certificate's public key. The arithmetic is RustCrypto's (`rsa`, `ecdsa`
//! over `p256`, `p384`, `p521`, `bp256`, `bp384`) where a crate offers the curve, and
//! [`crate::weierstrass`]'s for the other curves ICAO 9303 allows.

use const_oid::ObjectIdentifier as Oid;
use const_oid::db::rfc5912;
use der::Tagged;
use der::asn1::ObjectIdentifier;
use der::{Decode, Encode};
use ecdsa::signature::hazmat::PrehashVerifier;
use elliptic_curve::CurveArithmetic;
use elliptic_curve::sec1::ToSec1Point;
use rsa::pkcs1::DecodeRsaPublicKey;
use sha1::Sha1;
use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};
use spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};

use crate::weierstrass::Domain;

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
            Ok(curve) => format!("ECDSA {}", curve.name()),
            Err(_) => "ECDSA (unknown curve)".to_string(),
        },
        other => format!("unknown key algorithm {other}"),
    }
}

/// The hash an ECDSA signature algorithm (X9.62 or BSI TR-03111 plain) names.
pub fn ecdsa_hash(oid: Oid) -> Option<Hash> {
    let algorithm = AlgorithmIdentifierOwned { oid, parameters: None };
    match Scheme::from_algorithm(&algorithm, None) {
        Ok(Scheme::Ecdsa { hash, .. }) => Some(hash),
        _ => None,
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

/// The curves ICAO 9303 allows: NIST P-192 to P-521 and brainpoolP160r1 to P512r1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Curve {
    P192,
    P224,
    P256,
    P384,
    P521,
    BrainpoolP160r1,
    BrainpoolP192r1,
    BrainpoolP224r1,
    BrainpoolP256r1,
    BrainpoolP320r1,
    BrainpoolP384r1,
    BrainpoolP512r1,
}

/// A curve's domain parameters in hexadecimal, as OpenSSL prints them
/// (`openssl ecparam -name … -param_enc explicit`).
struct Params {
    curve: Curve,
    p: &'static str,
    a: &'static str,
    b: &'static str,
    gx: &'static str,
    gy: &'static str,
    n: &'static str,
}

const PARAMS: [Params; 12] = [
    Params {
        curve: Curve::P192,
        p: "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFFFFFFFFFF",
        a: "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFFFFFFFFFC",
        b: "64210519E59C80E70FA7E9AB72243049FEB8DEECC146B9B1",
        gx: "188DA80EB03090F67CBF20EB43A18800F4FF0AFD82FF1012",
        gy: "07192B95FFC8DA78631011ED6B24CDD573F977A11E794811",
        n: "FFFFFFFFFFFFFFFFFFFFFFFF99DEF836146BC9B1B4D22831",
    },
    Params {
        curve: Curve::P224,
        p: "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF000000000000000000000001",
        a: "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFE",
        b: "B4050A850C04B3ABF54132565044B0B7D7BFD8BA270B39432355FFB4",
        gx: "B70E0CBD6BB4BF7F321390B94A03C1D356C21122343280D6115C1D21",
        gy: "BD376388B5F723FB4C22DFE6CD4375A05A07476444D5819985007E34",
        n: "FFFFFFFFFFFFFFFFFFFFFFFFFFFF16A2E0B8F03E13DD29455C5C2A3D",
    },
    Params {
        curve: Curve::P256,
        p: "FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF",
        a: "FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFC",
        b: "5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B",
        gx: "6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296",
        gy: "4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5",
        n: "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551",
    },
    Params {
        curve: Curve::P384,
        p: "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFF0000000000000000FFFFFFFF",
        a: "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFF0000000000000000FFFFFFFC",
        b: "B3312FA7E23EE7E4988E056BE3F82D19181D9C6EFE8141120314088F5013875AC656398D8A2ED19D2A85C8EDD3EC2AEF",
        gx: "AA87CA22BE8B05378EB1C71EF320AD746E1D3B628BA79B9859F741E082542A385502F25DBF55296C3A545E3872760AB7",
        gy: "3617DE4A96262C6F5D9E98BF9292DC29F8F41DBD289A147CE9DA3113B5F0B8C00A60B1CE1D7E819D7A431D7C90EA0E5F",
        n: "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973",
    },
    Params {
        curve: Curve::P521,
        p: "01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
        a: "01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC",
        b: "0051953EB9618E1C9A1F929A21A0B68540EEA2DA725B99B315F3B8B489918EF109E156193951EC7E937B1652C0BD3BB1BF073573DF883D2C34F1EF451FD46B503F00",
        gx: "00C6858E06B70404E9CD9E3ECB662395B4429C648139053FB521F828AF606B4D3DBAA14B5E77EFE75928FE1DC127A2FFA8DE3348B3C1856A429BF97E7E31C2E5BD66",
        gy: "011839296A789A3BC0045C8A5FB42C7D1BD998F54449579B446817AFBD17273E662C97EE72995EF42640C550B9013FAD0761353C7086A272C24088BE94769FD16650",
        n: "01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFA51868783BF2F966B7FCC0148F709A5D03BB5C9B8899C47AEBB6FB71E91386409",
    },
    Params {
        curve: Curve::BrainpoolP160r1,
        p: "E95E4A5F737059DC60DFC7AD95B3D8139515620F",
        a: "340E7BE2A280EB74E2BE61BADA745D97E8F7C300",
        b: "1E589A8595423412134FAA2DBDEC95C8D8675E58",
        gx: "BED5AF16EA3F6A4F62938C4631EB5AF7BDBCDBC3",
        gy: "1667CB477A1A8EC338F94741669C976316DA6321",
        n: "E95E4A5F737059DC60DF5991D45029409E60FC09",
    },
    Params {
        curve: Curve::BrainpoolP192r1,
        p: "C302F41D932A36CDA7A3463093D18DB78FCE476DE1A86297",
        a: "6A91174076B1E0E19C39C031FE8685C1CAE040E5C69A28EF",
        b: "469A28EF7C28CCA3DC721D044F4496BCCA7EF4146FBF25C9",
        gx: "C0A0647EAAB6A48753B033C56CB0F0900A2F5C4853375FD6",
        gy: "14B690866ABD5BB88B5F4828C1490002E6773FA2FA299B8F",
        n: "C302F41D932A36CDA7A3462F9E9E916B5BE8F1029AC4ACC1",
    },
    Params {
        curve: Curve::BrainpoolP224r1,
        p: "D7C134AA264366862A18302575D1D787B09F075797DA89F57EC8C0FF",
        a: "68A5E62CA9CE6C1C299803A6C1530B514E182AD8B0042A59CAD29F43",
        b: "2580F63CCFE44138870713B1A92369E33E2135D266DBB372386C400B",
        gx: "0D9029AD2C7E5CF4340823B2A87DC68C9E4CE3174C1E6EFDEE12C07D",
        gy: "58AA56F772C0726F24C6B89E4ECDAC24354B9E99CAA3F6D3761402CD",
        n: "D7C134AA264366862A18302575D0FB98D116BC4B6DDEBCA3A5A7939F",
    },
    Params {
        curve: Curve::BrainpoolP256r1,
        p: "A9FB57DBA1EEA9BC3E660A909D838D726E3BF623D52620282013481D1F6E5377",
        a: "7D5A0975FC2C3057EEF67530417AFFE7FB8055C126DC5C6CE94A4B44F330B5D9",
        b: "26DC5C6CE94A4B44F330B5D9BBD77CBF958416295CF7E1CE6BCCDC18FF8C07B6",
        gx: "8BD2AEB9CB7E57CB2C4B482FFC81B7AFB9DE27E1E3BD23C23A4453BD9ACE3262",
        gy: "547EF835C3DAC4FD97F8461A14611DC9C27745132DED8E545C1D54C72F046997",
        n: "A9FB57DBA1EEA9BC3E660A909D838D718C397AA3B561A6F7901E0E82974856A7",
    },
    Params {
        curve: Curve::BrainpoolP320r1,
        p: "D35E472036BC4FB7E13C785ED201E065F98FCFA6F6F40DEF4F92B9EC7893EC28FCD412B1F1B32E27",
        a: "3EE30B568FBAB0F883CCEBD46D3F3BB8A2A73513F5EB79DA66190EB085FFA9F492F375A97D860EB4",
        b: "520883949DFDBC42D3AD198640688A6FE13F41349554B49ACC31DCCD884539816F5EB4AC8FB1F1A6",
        gx: "43BD7E9AFB53D8B85289BCC48EE5BFE6F20137D10A087EB6E7871E2A10A599C710AF8D0D39E20611",
        gy: "14FDD05545EC1CC8AB4093247F77275E0743FFED117182EAA9C77877AAAC6AC7D35245D1692E8EE1",
        n: "D35E472036BC4FB7E13C785ED201E065F98FCFA5B68F12A32D482EC7EE8658E98691555B44C59311",
    },
    Params {
        curve: Curve::BrainpoolP384r1,
        p: "8CB91E82A3386D280F5D6F7E50E641DF152F7109ED5456B412B1DA197FB71123ACD3A729901D1A71874700133107EC53",
        a: "7BC382C63D8C150C3C72080ACE05AFA0C2BEA28E4FB22787139165EFBA91F90F8AA5814A503AD4EB04A8C7DD22CE2826",
        b: "04A8C7DD22CE28268B39B55416F0447C2FB77DE107DCD2A62E880EA53EEB62D57CB4390295DBC9943AB78696FA504C11",
        gx: "1D1C64F068CF45FFA2A63A81B7C13F6B8847A3E77EF14FE3DB7FCAFE0CBD10E8E826E03436D646AAEF87B2E247D4AF1E",
        gy: "8ABE1D7520F9C2A45CB1EB8E95CFD55262B70B29FEEC5864E19C054FF99129280E4646217791811142820341263C5315",
        n: "8CB91E82A3386D280F5D6F7E50E641DF152F7109ED5456B31F166E6CAC0425A7CF3AB6AF6B7FC3103B883202E9046565",
    },
    Params {
        curve: Curve::BrainpoolP512r1,
        p: "AADD9DB8DBE9C48B3FD4E6AE33C9FC07CB308DB3B3C9D20ED6639CCA703308717D4D9B009BC66842AECDA12AE6A380E62881FF2F2D82C68528AA6056583A48F3",
        a: "7830A3318B603B89E2327145AC234CC594CBDD8D3DF91610A83441CAEA9863BC2DED5D5AA8253AA10A2EF1C98B9AC8B57F1117A72BF2C7B9E7C1AC4D77FC94CA",
        b: "3DF91610A83441CAEA9863BC2DED5D5AA8253AA10A2EF1C98B9AC8B57F1117A72BF2C7B9E7C1AC4D77FC94CADC083E67984050B75EBAE5DD2809BD638016F723",
        gx: "81AEE4BDD82ED9645A21322E9C4C6A9385ED9F70B5D916C1B43B62EEF4D0098EFF3B1F78E2D0D48D50D1687B93B97D5F7C6D5047406A5E688B352209BCB9F822",
        gy: "7DDE385D566332ECC0EABFA9CF7822FDF209F70024A57B1AA000C55B881F8111B2DCDE494A5F485E5BCA4BD88A2763AED1CA2B2FA8F0540678CD1E0F3AD80892",
        n: "AADD9DB8DBE9C48B3FD4E6AE33C9FC07CB308DB3B3C9D20ED6639CCA70330870553E5C414CA92619418661197FAC10471DB1D381085DDADDB58796829CA90069",
    },
];

/// The curves' identifiers (RFC 5480, RFC 5639).
const CURVE_OIDS: [(Oid, Curve); 12] = [
    (Oid::new_unwrap("1.2.840.10045.3.1.1"), Curve::P192),
    (Oid::new_unwrap("1.3.132.0.33"), Curve::P224),
    (Oid::new_unwrap("1.2.840.10045.3.1.7"), Curve::P256),
    (Oid::new_unwrap("1.3.132.0.34"), Curve::P384),
    (Oid::new_unwrap("1.3.132.0.35"), Curve::P521),
    (Oid::new_unwrap("1.3.36.3.3.2.8.1.1.1"), Curve::BrainpoolP160r1),
    (Oid::new_unwrap("1.3.36.3.3.2.8.1.1.3"), Curve::BrainpoolP192r1),
    (Oid::new_unwrap("1.3.36.3.3.2.8.1.1.5"), Curve::BrainpoolP224r1),
    (Oid::new_unwrap("1.3.36.3.3.2.8.1.1.7"), Curve::BrainpoolP256r1),
    (Oid::new_unwrap("1.3.36.3.3.2.8.1.1.9"), Curve::BrainpoolP320r1),
    (Oid::new_unwrap("1.3.36.3.3.2.8.1.1.11"), Curve::BrainpoolP384r1),
    (Oid::new_unwrap("1.3.36.3.3.2.8.1.1.13"), Curve::BrainpoolP512r1),
];

impl Curve {
    pub fn name(self) -> &'static str {
        match self {
            Curve::P192 => "P-192",
            Curve::P224 => "P-224",
            Curve::P256 => "P-256",
            Curve::P384 => "P-384",
            Curve::P521 => "P-521",
            Curve::BrainpoolP160r1 => "brainpoolP160r1",
            Curve::BrainpoolP192r1 => "brainpoolP192r1",
            Curve::BrainpoolP224r1 => "brainpoolP224r1",
            Curve::BrainpoolP256r1 => "brainpoolP256r1",
            Curve::BrainpoolP320r1 => "brainpoolP320r1",
            Curve::BrainpoolP384r1 => "brainpoolP384r1",
            Curve::BrainpoolP512r1 => "brainpoolP512r1",
        }
    }

    fn from_oid(oid: &Oid) -> Option<Curve> {
        CURVE_OIDS.iter().find(|(id, _)| id == oid).map(|&(_, curve)| curve)
    }

    fn domain(self) -> Domain {
        let params = PARAMS.iter().find(|p| p.curve == self).unwrap_or(&PARAMS[0]);
        Domain::from_hex(params.p, params.a, params.b, params.gx, params.gy, params.n)
    }
}

/// The curve of an EC public key: named by its identifier, or given by explicit domain
/// parameters (common in CSCA and document signer certificates) that are those of a named
/// curve, field, coefficients, generator and order alike. The error names what is not.
pub fn curve_of(spki: &SubjectPublicKeyInfoOwned) -> Result<Curve, String> {
    let Some(params) = spki.algorithm.parameters.as_ref() else {
        return Err("an EC key without domain parameters".into());
    };
    if let Ok(oid) = params.decode_as::<Oid>() {
        return Curve::from_oid(&oid)
            .ok_or_else(|| format!("an EC key on curve {}", name_of(&oid)));
    }
    explicit_curve(params.value()).ok_or_else(|| {
        "an EC key with explicit parameters of a curve ICAO 9303 does not name".into()
    })
}

/// ECParameters ::= SEQUENCE { version, fieldID { prime-field, p }, curve { a, b, seed
/// OPTIONAL }, base ECPoint, order, cofactor OPTIONAL }
fn explicit_curve(value: &[u8]) -> Option<Curve> {
    use num_bigint::BigUint;
    let fields = crate::raw::children(value).ok()?;
    let field_id = crate::raw::children(fields.get(1)?.value()).ok()?;
    let coefficients = crate::raw::children(fields.get(2)?.value()).ok()?;
    let p = BigUint::from_bytes_be(field_id.get(1)?.value());
    let a = BigUint::from_bytes_be(coefficients.first()?.value());
    let b = BigUint::from_bytes_be(coefficients.get(1)?.value());
    let base = fields.get(3)?.value();
    let n = BigUint::from_bytes_be(fields.get(4)?.value());
    PARAMS.iter().map(|params| params.curve).find(|curve| {
        let domain = curve.domain();
        domain.p == p
            && domain.a == a
            && domain.b == b
            && domain.n == n
            && domain.decode_point(base).is_some_and(|(x, y)| x == domain.gx && y == domain.gy)
    })
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
    let curve = match curve_of(spki) {
        Ok(curve) => curve,
        Err(what) => return SignatureCheck::Unsupported(what),
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
        other => generic_verify(&other.domain(), point, &prehash, signature, plain),
    };
    if verified { SignatureCheck::Verified } else { SignatureCheck::Invalid }
}

/// ECDSA over a curve no RustCrypto crate offers, by [`crate::weierstrass`].
fn generic_verify(
    domain: &Domain,
    point: &[u8],
    prehash: &[u8],
    signature: &[u8],
    plain: bool,
) -> bool {
    let Some((qx, qy)) = domain.decode_point(point) else { return false };
    let from_der = || der_signature(signature);
    let from_plain = || {
        let half = domain.scalar_len();
        (signature.len() == 2 * half).then(|| {
            let (r, s) = signature.split_at(half);
            (num_bigint::BigUint::from_bytes_be(r), num_bigint::BigUint::from_bytes_be(s))
        })
    };
    // Some signers write r‖s under the X9.62 identifiers, and some DER under the plain ones.
    let parsed =
        if plain { from_plain().or_else(from_der) } else { from_der().or_else(from_plain) };
    let Some((r, s)) = parsed else { return false };
    domain.verify((&qx, &qy), prehash, &r, &s)
}

/// `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }`, both positive.
fn der_signature(signature: &[u8]) -> Option<(num_bigint::BigUint, num_bigint::BigUint)> {
    let sequence = der::AnyRef::from_der(signature).ok()?;
    if sequence.tag() != der::Tag::Sequence {
        return None;
    }
    let parts = crate::raw::children(sequence.value()).ok()?;
    let [r, s] = parts.as_slice() else { return None };
    let positive = |part: &der::AnyRef<'_>| {
        (part.tag() == der::Tag::Integer && part.value().first().is_some_and(|b| b & 0x80 == 0))
            .then(|| num_bigint::BigUint::from_bytes_be(part.value()))
    };
    Some((positive(r)?, positive(s)?))
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
