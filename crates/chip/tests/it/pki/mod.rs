//! A test PKI made at run time: CSCAs, document signers, EF.SOD over made-up data groups,
//! master lists and CRLs, with RustCrypto's builders. The RSA key is a fixture (key
//! generation is slow in debug builds); every certificate and signature is made here.

#![allow(dead_code)]

use std::str::FromStr;
use std::time::{Duration, SystemTime};

use cms::cert::{CertificateChoices, IssuerAndSerialNumber};
use cms::content_info::{CmsVersion, ContentInfo};
use cms::signed_data::{
    CertificateSet, EncapsulatedContentInfo, SignedData, SignerIdentifier, SignerInfo, SignerInfos,
};
use der::asn1::{ObjectIdentifier as Oid, OctetString, SetOfVec};
use der::{Any, AnyRef, Decode, Encode, Sequence, Tag, TagNumber};
use p256::ecdsa::{DerSignature, SigningKey};
use rsa::pkcs8::DecodePrivateKey;
use sha2::{Digest, Sha256};
use spki::{
    AlgorithmIdentifierOwned, EncodePublicKey, SubjectPublicKeyInfoOwned, SubjectPublicKeyInfoRef,
};
use x509_cert::Certificate;
use x509_cert::TbsCertificate;
use x509_cert::attr::{Attribute, AttributeValue};
use x509_cert::builder::profile::BuilderProfile;
use x509_cert::builder::{Builder, CertificateBuilder};
use x509_cert::ext::pkix::{BasicConstraints, KeyUsage, KeyUsages};
use x509_cert::ext::{Extension, ToExtension};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::time::{Time, Validity};

pub const ID_SIGNED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.2");
pub const ID_LDS_SECURITY_OBJECT: Oid = Oid::new_unwrap("2.23.136.1.1.1");
pub const ID_CSCA_MASTER_LIST: Oid = Oid::new_unwrap("2.23.136.1.1.2");
const ID_SHA256: Oid = Oid::new_unwrap("2.16.840.1.101.3.4.2.1");
const ID_CONTENT_TYPE: Oid = Oid::new_unwrap("1.2.840.113549.1.9.3");
const ID_MESSAGE_DIGEST: Oid = Oid::new_unwrap("1.2.840.113549.1.9.4");
const ID_SIGNING_TIME: Oid = Oid::new_unwrap("1.2.840.113549.1.9.5");
const ECDSA_WITH_SHA256: Oid = Oid::new_unwrap("1.2.840.10045.4.3.2");
const ID_RSASSA_PSS: Oid = Oid::new_unwrap("1.2.840.113549.1.1.10");

/// The ICAO 9303 specimen passport's MRZ.
pub const MRZ: [&str; 2] = [
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
];

pub fn years(n: u64) -> Duration {
    Duration::from_secs(n * 365 * 24 * 3600)
}

pub fn now() -> SystemTime {
    SystemTime::now()
}

/// An EC P-256 key from a fixed seed.
pub fn ec_key(seed: u8) -> SigningKey {
    let mut bytes = [0u8; 32];
    bytes[31] = seed;
    bytes[0] = 0x11;
    SigningKey::from_slice(&bytes).expect("valid scalar")
}

/// The fixture RSA key.
pub fn rsa_key() -> rsa::PrivateKey {
    rsa::PrivateKey::from_pkcs8_pem(include_str!("../../keys/test-document-signer-rsa.pem"))
        .expect("fixture key")
}

pub fn ec_spki(key: &SigningKey) -> SubjectPublicKeyInfoOwned {
    let der = key.verifying_key().to_public_key_der().expect("spki");
    SubjectPublicKeyInfoOwned::from_der(der.as_bytes()).expect("spki")
}

pub fn rsa_spki(key: &rsa::PrivateKey) -> SubjectPublicKeyInfoOwned {
    let der = key.to_public_key().to_public_key_der().expect("spki");
    SubjectPublicKeyInfoOwned::from_der(der.as_bytes()).expect("spki")
}

struct Profile {
    issuer: Name,
    subject: Name,
    ca: bool,
}

impl BuilderProfile for Profile {
    fn get_issuer(&self, _subject: &Name) -> Name {
        self.issuer.clone()
    }

    fn get_subject(&self) -> Name {
        self.subject.clone()
    }

    fn build_extensions(
        &self,
        spk: SubjectPublicKeyInfoRef<'_>,
        _issuer_spk: SubjectPublicKeyInfoRef<'_>,
        tbs: &TbsCertificate,
    ) -> x509_cert::builder::Result<Vec<Extension>> {
        let subject = tbs.subject();
        let mut extensions = Vec::new();
        let key_id = x509_cert::ext::pkix::SubjectKeyIdentifier::try_from(spk)?;
        extensions.push((&key_id).to_extension(subject, &[])?);
        if self.ca {
            let bc = BasicConstraints { ca: true, path_len_constraint: Some(0) };
            extensions.push((&bc).to_extension(subject, &[])?);
            let ku = KeyUsage(KeyUsages::KeyCertSign | KeyUsages::CRLSign);
            extensions.push((&ku).to_extension(subject, &[])?);
        } else {
            let ku = KeyUsage(KeyUsages::DigitalSignature.into());
            extensions.push((&ku).to_extension(subject, &[])?);
        }
        Ok(extensions)
    }
}

/// Issues a certificate, signed by `issuer_key` (EC P-256).
pub fn issue(
    issuer_key: &SigningKey,
    issuer: &str,
    subject: &str,
    spki: SubjectPublicKeyInfoOwned,
    ca: bool,
    serial: u32,
    valid: (SystemTime, SystemTime),
) -> Vec<u8> {
    let profile = Profile {
        issuer: Name::from_str(issuer).expect("issuer name"),
        subject: Name::from_str(subject).expect("subject name"),
        ca,
    };
    let validity = Validity::new(
        Time::try_from(valid.0).expect("not before"),
        Time::try_from(valid.1).expect("not after"),
    );
    let builder = CertificateBuilder::new(profile, SerialNumber::from(serial), validity, spki)
        .expect("builder");
    let cert: Certificate = builder.build::<_, DerSignature>(issuer_key).expect("certificate");
    cert.to_der().expect("encode")
}

/// A self-signed CSCA valid from ten years ago for twenty years.
pub fn csca(key: &SigningKey, name: &str) -> Vec<u8> {
    issue(key, name, name, ec_spki(key), true, 1, (now() - years(10), now() + years(10)))
}

pub const CSCA_NAME: &str = "CN=Test CSCA,O=Test State,C=UT";
pub const OTHER_CSCA_NAME: &str = "CN=Other CSCA,O=Other State,C=UT";
pub const DS_NAME: &str = "CN=Test Document Signer,O=Test State,C=UT";

/// How EF.SOD is signed.
pub enum SodKey<'a> {
    Ecdsa(&'a SigningKey),
    RsaPss(&'a rsa::PrivateKey),
}

/// An LDS data group file: the tag for `number`, around `content`.
pub fn data_group(number: u8, content: &[u8]) -> Vec<u8> {
    let tag: u8 = [
        0x61, 0x75, 0x63, 0x76, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6A, 0x6B, 0x6C, 0x6D, 0x6E, 0x6F,
        0x70,
    ][usize::from(number - 1)];
    let application =
        Tag::Application { constructed: true, number: TagNumber(u32::from(tag & 0x1F)) };
    AnyRef::new(application, content).expect("length").to_der().expect("encode")
}

/// DG1 holding `lines`.
pub fn dg1(lines: &[&str]) -> Vec<u8> {
    let text: String = lines.concat();
    let mrz = AnyRef::new(
        Tag::Application { constructed: false, number: TagNumber(31) },
        text.as_bytes(),
    )
    .expect("length")
    .to_der()
    .expect("encode");
    data_group(1, &mrz)
}

#[derive(Sequence)]
struct Lds {
    version: u8,
    hash_algorithm: AlgorithmIdentifierOwned,
    data_group_hash_values: Vec<DgHash>,
}

#[derive(Sequence)]
struct DgHash {
    number: u8,
    hash: OctetString,
}

#[derive(Sequence)]
struct MasterList {
    version: u8,
    certificates: SetOfVec<Any>,
}

fn sha256_alg() -> AlgorithmIdentifierOwned {
    AlgorithmIdentifierOwned { oid: ID_SHA256, parameters: None }
}

fn attribute(oid: Oid, value: Any) -> Attribute {
    Attribute { oid, values: SetOfVec::try_from(vec![AttributeValue::from(value)]).expect("set") }
}

/// Options for [`signed_data`].
pub struct SignOptions<'a> {
    pub key: SodKey<'a>,
    /// The signer's certificate, put in the SignedData when `include_certificate`.
    pub certificate: &'a [u8],
    pub include_certificate: bool,
    pub signing_time: Option<SystemTime>,
}

/// A ContentInfo with SignedData over `content` of type `content_type`.
pub fn signed_data(content_type: Oid, content: &[u8], options: &SignOptions<'_>) -> Vec<u8> {
    signed_data_naming(content_type, content, options, None, &[])
}

/// How a test EF.SOD names its signer, when not by its certificate's issuer and serial.
#[derive(Clone, Copy)]
pub enum Sid<'a> {
    /// Issuer name and serial number.
    Name(&'a str, u32),
    /// Subject key identifier.
    KeyId(&'a [u8]),
}

/// The same, naming the signer by `sid` instead of its certificate's issuer and serial.
fn signed_data_naming(
    content_type: Oid,
    content: &[u8],
    options: &SignOptions<'_>,
    sid: Option<Sid<'_>>,
    extra: &[&[u8]],
) -> Vec<u8> {
    let cert = Certificate::from_der(options.certificate).expect("signer certificate");
    let mut attrs = vec![
        attribute(ID_CONTENT_TYPE, Any::encode_from(&content_type).expect("oid")),
        attribute(
            ID_MESSAGE_DIGEST,
            Any::encode_from(&OctetString::new(Sha256::digest(content).to_vec()).expect("octets"))
                .expect("digest"),
        ),
    ];
    if let Some(time) = options.signing_time {
        attrs.push(attribute(
            ID_SIGNING_TIME,
            Any::encode_from(&Time::try_from(time).expect("time")).expect("time"),
        ));
    }
    let attrs = SetOfVec::try_from(attrs).expect("attributes");
    let to_sign = attrs.to_der().expect("signed attributes");
    let (signature_algorithm, signature) = match options.key {
        SodKey::Ecdsa(key) => {
            let signature: DerSignature = signature::Signer::sign(key, &to_sign);
            (
                AlgorithmIdentifierOwned { oid: ECDSA_WITH_SHA256, parameters: None },
                signature.to_bytes().to_vec(),
            )
        }
        SodKey::RsaPss(key) => {
            let signer = rsa::pss::SigningKey::<Sha256>::new(key.clone());
            let mut rng = getrandom::rand_core::UnwrapErr(getrandom::SysRng);
            let signature = signature::RandomizedSigner::sign_with_rng(&signer, &mut rng, &to_sign);
            let params = rsa::pkcs1::RsaPssParams::new::<Sha256>(32);
            (
                AlgorithmIdentifierOwned {
                    oid: ID_RSASSA_PSS,
                    parameters: Some(Any::encode_from(&params).expect("pss params")),
                },
                signature::SignatureEncoding::to_vec(&signature),
            )
        }
    };
    let signer = SignerInfo {
        version: CmsVersion::V1,
        sid: match sid {
            None => SignerIdentifier::IssuerAndSerialNumber(IssuerAndSerialNumber {
                issuer: cert.tbs_certificate().issuer().clone(),
                serial_number: cert.tbs_certificate().serial_number().clone(),
            }),
            Some(Sid::Name(issuer, serial)) => {
                SignerIdentifier::IssuerAndSerialNumber(IssuerAndSerialNumber {
                    issuer: Name::from_str(issuer).expect("issuer name"),
                    serial_number: SerialNumber::from(serial),
                })
            }
            Some(Sid::KeyId(id)) => SignerIdentifier::SubjectKeyIdentifier(
                x509_cert::ext::pkix::SubjectKeyIdentifier(OctetString::new(id).expect("id")),
            ),
        },
        digest_alg: sha256_alg(),
        signed_attrs: Some(attrs),
        signature_algorithm,
        signature: OctetString::new(signature).expect("signature"),
        unsigned_attrs: None,
    };
    let certificates = options.include_certificate.then(|| {
        let mut all = vec![CertificateChoices::Certificate(cert.clone())];
        all.extend(extra.iter().map(|der| {
            CertificateChoices::Certificate(Certificate::from_der(der).expect("certificate"))
        }));
        CertificateSet(SetOfVec::try_from(all).expect("set"))
    });
    let data = SignedData {
        version: CmsVersion::V3,
        digest_algorithms: SetOfVec::try_from(vec![sha256_alg()]).expect("set"),
        encap_content_info: EncapsulatedContentInfo {
            econtent_type: content_type,
            econtent: Some(
                Any::encode_from(&OctetString::new(content.to_vec()).expect("octets"))
                    .expect("content"),
            ),
        },
        certificates,
        crls: None,
        signer_infos: SignerInfos(SetOfVec::try_from(vec![signer]).expect("set")),
    };
    let info = ContentInfo {
        content_type: ID_SIGNED_DATA,
        content: Any::encode_from(&data).expect("signed data"),
    };
    info.to_der().expect("content info")
}

/// EF.SOD over `groups` (data group files), wrapped in `[APPLICATION 23]`.
pub fn sod(groups: &[&[u8]], options: &SignOptions<'_>) -> Vec<u8> {
    sod_naming(groups, options, None)
}

/// EF.SOD carrying `extra` certificates besides its signer's (CSCA link certificates).
pub fn sod_carrying(groups: &[&[u8]], options: &SignOptions<'_>, extra: &[&[u8]]) -> Vec<u8> {
    sod_with(groups, options, None, extra)
}

/// EF.SOD naming its signer by `sid` (issuer name, serial number).
pub fn sod_naming(groups: &[&[u8]], options: &SignOptions<'_>, sid: Option<Sid<'_>>) -> Vec<u8> {
    sod_with(groups, options, sid, &[])
}

fn sod_with(
    groups: &[&[u8]],
    options: &SignOptions<'_>,
    sid: Option<Sid<'_>>,
    extra: &[&[u8]],
) -> Vec<u8> {
    let lds = Lds {
        version: 0,
        hash_algorithm: sha256_alg(),
        data_group_hash_values: groups
            .iter()
            .map(|group| DgHash {
                number: mrtd_chip::data_group_number(group[0]).expect("data group tag"),
                hash: OctetString::new(Sha256::digest(group).to_vec()).expect("hash"),
            })
            .collect(),
    };
    let content = lds.to_der().expect("lds");
    let info = signed_data_naming(ID_LDS_SECURITY_OBJECT, &content, options, sid, extra);
    AnyRef::new(Tag::Application { constructed: true, number: TagNumber(23) }, &info)
        .expect("length")
        .to_der()
        .expect("encode")
}

/// A CSCA master list holding `certificates`, signed with `options`.
pub fn master_list(certificates: &[&[u8]], options: &SignOptions<'_>) -> Vec<u8> {
    let list = MasterList {
        version: 0,
        certificates: SetOfVec::try_from(
            certificates.iter().map(|c| Any::from_der(c).expect("certificate")).collect::<Vec<_>>(),
        )
        .expect("set"),
    };
    signed_data(ID_CSCA_MASTER_LIST, &list.to_der().expect("list"), options)
}

/// A CRL from the CSCA (`csca_der`, key `csca_key`) revoking the certificates with `serials`.
pub fn crl(csca_key: &SigningKey, csca_der: &[u8], serials: &[u32]) -> Vec<u8> {
    crl_until(csca_key, csca_der, serials, None)
}

/// The same, with its `nextUpdate`.
pub fn crl_until(
    csca_key: &SigningKey,
    csca_der: &[u8],
    serials: &[u32],
    next_update: Option<SystemTime>,
) -> Vec<u8> {
    use x509_cert::builder::CrlBuilder;
    use x509_cert::crl::RevokedCert;
    use x509_cert::ext::pkix::CrlNumber;
    let csca = Certificate::from_der(csca_der).expect("CSCA");
    let number = CrlNumber(der::asn1::Uint::new(&[1]).expect("number"));
    let revoked = serials.iter().map(|serial| RevokedCert {
        serial_number: SerialNumber::from(*serial),
        revocation_date: Time::try_from(now() - years(1) / 4).expect("time"),
        crl_entry_extensions: None,
    });
    let builder = CrlBuilder::new(&csca, number)
        .expect("builder")
        .with_certificates(revoked)
        .with_next_update(next_update.map(|t| Time::try_from(t).expect("time")));
    let list = builder.build::<_, DerSignature>(csca_key).expect("CRL");
    list.to_der().expect("encode")
}
