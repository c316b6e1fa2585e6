//! The document signer's chain to a CSCA in the trust store: issued (name and signature),
//! usages allowing the roles, valid when EF.SOD was signed, not revoked by a CRL from its
//! issuer; CSCA link certificates EF.SOD carries are followed to a CSCA in the store.

use crate::cert::{self, Cert};
use crate::crypto::SignatureCheck;
use crate::report::{ChainStatus, Diagnostic};
use crate::trust::TrustStore;

/// How many CSCA link certificates a chain may pass through (a state renews its CSCA every
/// few years; real chains carry one or two).
const MAX_LINKS: usize = 4;

/// The times a chain is judged at.
pub struct When {
    /// When EF.SOD was signed, or now when it does not say.
    pub at: der::DateTime,
    /// Whether EF.SOD said when it was signed.
    pub signed_at: bool,
    /// Now: a CRL is fresh until its `nextUpdate`.
    pub now: der::DateTime,
}

/// Checks the chain of `signer` to a CSCA in `trust`; `carried` are the certificates EF.SOD
/// carries (its CSCA link certificates are candidates on the way, never anchors).
pub fn check<'a>(
    signer: &Cert,
    when: &When,
    trust: &'a TrustStore,
    carried: &'a [Cert],
    diagnostics: &mut Vec<Diagnostic>,
) -> (ChainStatus, Option<&'a Cert>) {
    if trust.is_empty() {
        diagnostics.push(diag(
            "no_trust_anchor",
            "no CSCA certificates are configured (--csca-dir, MRTD_CSCA_DIR): the chain is not checked and the document is not called authentic",
        ));
        return (ChainStatus::NoTrustAnchor, None);
    }
    let mut unsupported = None;
    let mut explored = vec![false; carried.len()];
    let Some(path) = issuers(signer, trust, carried, 0, &mut explored, &mut unsupported) else {
        // A CSCA that names the signer's issuer but whose key this build cannot use leaves
        // the chain unproven, not refuted.
        if let Some(what) = unsupported {
            diagnostics.push(diag(
                "unsupported_algorithm",
                format!("cannot check the document signer certificate's signature: {what}"),
            ));
            return (ChainStatus::UnsupportedAlgorithm, None);
        }
        diagnostics.push(diag(
            "untrusted",
            "no CSCA in the trust store issued the document signer certificate",
        ));
        return (ChainStatus::Untrusted, None);
    };
    let anchor = path.last().copied();
    let links = &path[..path.len() - 1];
    if !links.is_empty() {
        let names: Vec<String> = links.iter().map(|link| link.subject().to_string()).collect();
        diagnostics.push(diag(
            "csca_link",
            format!(
                "the chain passes through the CSCA link certificate(s) EF.SOD carries ({}) to a CSCA in the trust store",
                names.join(", ")
            ),
        ));
    }
    if !signer.may_sign_documents() || !path.iter().all(|ca| ca.may_sign_certificates()) {
        diagnostics.push(diag(
            "wrong_key_usage",
            "the document signer's key usage or the CSCA's basic constraints do not allow their roles",
        ));
        return (ChainStatus::WrongKeyUsage, anchor);
    }
    let at = when.at;
    if !signer.valid_at(at) || !path.iter().all(|ca| ca.valid_at(at)) {
        let moment = if when.signed_at {
            format!("at {at}, when EF.SOD was signed")
        } else {
            format!("at {at}, today: EF.SOD does not say when it was signed, so it is judged now")
        };
        diagnostics.push(diag(
            "expired",
            format!("the document signer or its CSCA was not valid {moment}"),
        ));
        return (ChainStatus::Expired, anchor);
    }
    let issuer = path[0];
    let crls: Vec<_> = trust
        .crls()
        .iter()
        .filter(|crl| {
            cert::same_name(&crl.parsed.tbs_cert_list.issuer, issuer.subject())
                && issuer.check_signed(
                    &crl.der,
                    &crl.parsed.signature_algorithm,
                    &crl.parsed.signature,
                ) == SignatureCheck::Verified
        })
        .collect();
    let serial = signer.parsed.tbs_certificate().serial_number();
    let revoked = crls.iter().any(|crl| {
        crl.parsed
            .tbs_cert_list
            .revoked_certificates
            .iter()
            .flatten()
            .any(|r| &r.serial_number == serial)
    });
    if revoked {
        diagnostics
            .push(diag("revoked", "a CRL from the CSCA revokes the document signer certificate"));
        return (ChainStatus::Revoked, anchor);
    }
    // A CRL past its nextUpdate may miss a revocation since: said, not held against the
    // document (no CRL at all is not either).
    let fresh = crls.iter().any(|crl| {
        crl.parsed.tbs_cert_list.next_update.is_none_or(|next| next.to_date_time() >= when.now)
    });
    if !crls.is_empty() && !fresh {
        let due = crls
            .iter()
            .filter_map(|crl| crl.parsed.tbs_cert_list.next_update)
            .map(|next| next.to_date_time())
            .max()
            .map_or_else(String::new, |next| format!(" (next update due {next})"));
        diagnostics.push(diag(
            "crl_stale",
            format!(
                "the CSCA's CRL is stale{due}: a revocation since then would not be seen; load a current one"
            ),
        ));
    }
    (ChainStatus::Trusted, anchor)
}

/// The certificates that issued `cert`, up to a CSCA in the trust store (the last): a CSCA of
/// the store that issued it, or else a CSCA link certificate EF.SOD carries that did and that
/// is itself issued so, at most [`MAX_LINKS`] deep. A link once explored without reaching the
/// store is not explored again (`explored`), so a crafted EF.SOD cannot make the search long.
fn issuers<'a>(
    cert: &Cert,
    trust: &'a TrustStore,
    carried: &'a [Cert],
    depth: usize,
    explored: &mut [bool],
    unsupported: &mut Option<String>,
) -> Option<Vec<&'a Cert>> {
    for anchor in trust.anchors() {
        if issued_by(cert, anchor, unsupported) {
            return Some(vec![anchor]);
        }
    }
    if depth >= MAX_LINKS {
        return None;
    }
    for (i, link) in carried.iter().enumerate() {
        if explored[i] || !link.is_ca() || link.der == cert.der {
            continue;
        }
        if issued_by(cert, link, unsupported) {
            explored[i] = true;
            if let Some(mut rest) = issuers(link, trust, carried, depth + 1, explored, unsupported)
            {
                rest.insert(0, link);
                return Some(rest);
            }
        }
    }
    None
}

/// Whether `issuer` issued `cert` (by name and a signature that verifies); an algorithm this
/// build cannot check is noted in `unsupported`.
fn issued_by(cert: &Cert, issuer: &Cert, unsupported: &mut Option<String>) -> bool {
    cert.names_issuer(issuer)
        && match cert.signed_by(issuer) {
            SignatureCheck::Verified => true,
            SignatureCheck::Invalid => false,
            SignatureCheck::Unsupported(what) => {
                *unsupported = Some(what);
                false
            }
        }
}

fn diag(code: &str, message: impl Into<String>) -> Diagnostic {
    Diagnostic { code: code.to_string(), message: message.into() }
}
