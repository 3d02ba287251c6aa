//! JSON Web Tokens the client signs and reads: [`PrivateKey`] (a PEM key
//! for `private_key_jwt`, signed with `ring`), the client assertion of
//! RFC 7523 § 2.2, and the unverified look at an assertion's `exp` before
//! it is sent.

use std::fmt;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, KeyPair as _, RsaKeyPair};
use rustls_pki_types::PrivateKeyDer;
use rustls_pki_types::pem::PemObject;
use serde_json::{Map, Value, json};

use crate::error::{AssertionProblem, AuthError, KeyProblem};
use crate::pkce::random_token;
use crate::secret::Secret;

/// How long a client assertion is valid: long enough for one request,
/// short enough that a captured one is soon useless (RFC 7523 § 3 asks
/// for an `exp`; servers reject long-lived ones).
pub(crate) const CLIENT_ASSERTION_LIFETIME_SECS: u64 = 60;

/// The JWS algorithms a [`PrivateKey`] signs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SigningAlgorithm {
    /// ECDSA on P-256 with SHA-256 (RFC 7518 § 3.4).
    Es256,
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 § 3.3).
    Rs256,
}

impl SigningAlgorithm {
    /// The JWS `alg` name: `"ES256"` or `"RS256"`.
    pub fn name(self) -> &'static str {
        match self {
            SigningAlgorithm::Es256 => "ES256",
            SigningAlgorithm::Rs256 => "RS256",
        }
    }

    /// The algorithm named `name` (`ES256`, `RS256`; exact JWS spelling).
    pub fn from_name(name: &str) -> Option<SigningAlgorithm> {
        match name {
            "ES256" => Some(SigningAlgorithm::Es256),
            "RS256" => Some(SigningAlgorithm::Rs256),
            _ => None,
        }
    }
}

impl fmt::Display for SigningAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

enum Pair {
    Es256(EcdsaKeyPair),
    Rs256(RsaKeyPair),
}

/// A private key that signs client assertions (`private_key_jwt`, RFC 7523
/// § 2.2): an EC P-256 key (ES256) or an RSA key of 2048 to 4096 bits
/// (RS256).
///
/// Accepted PEM: PKCS#8 `-----BEGIN PRIVATE KEY-----` (EC P-256 or RSA)
/// and PKCS#1 `-----BEGIN RSA PRIVATE KEY-----`. Encrypted keys and SEC1
/// `EC PRIVATE KEY` are refused with an error saying how to convert them.
/// Its `Debug` shows the algorithm and the origin, never the key.
pub struct PrivateKey {
    pair: Pair,
    origin: String,
    key_id: Option<String>,
}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrivateKey")
            .field("algorithm", &self.algorithm().name())
            .field("origin", &self.origin)
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

/// DER object identifiers, to name a key type ring does not sign with.
const OID_EC_P384: &[u8] = &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22];
const OID_EC_P521: &[u8] = &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23];
const OID_EC_SECP256K1: &[u8] = &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a];
const OID_ED25519: &[u8] = &[0x06, 0x03, 0x2b, 0x65, 0x70];
const OID_ED448: &[u8] = &[0x06, 0x03, 0x2b, 0x65, 0x71];
const OID_EC_PUBLIC_KEY: &[u8] = &[0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const OID_RSA: &[u8] = &[
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01,
];
const OID_P256: &[u8] = &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];

fn contains(der: &[u8], oid: &[u8]) -> bool {
    der.windows(oid.len()).any(|w| w == oid)
}

/// What a PKCS#8 key that ring refused is, in words, from the OIDs in its
/// algorithm identifier.
fn describe_pkcs8(der: &[u8]) -> Option<&'static str> {
    // Only the head of the structure holds the algorithm identifier.
    let head = &der[..der.len().min(40)];
    [
        (OID_ED25519, "an Ed25519 key"),
        (OID_ED448, "an Ed448 key"),
        (OID_EC_P384, "an EC P-384 key"),
        (OID_EC_P521, "an EC P-521 key"),
        (OID_EC_SECP256K1, "an EC secp256k1 key"),
    ]
    .iter()
    .find(|(oid, _)| contains(head, oid))
    .map(|(_, what)| *what)
}

impl PrivateKey {
    /// The key in the PEM text `pem`.
    ///
    /// Errors: [`AuthError::Key`] with [`KeyProblem::NotPem`] (no private
    /// key section), [`KeyProblem::Sec1`], [`KeyProblem::UnsupportedKeyType`]
    /// (Ed25519, P-384, …) or [`KeyProblem::Malformed`].
    pub fn from_pem(pem: &str) -> Result<PrivateKey, AuthError> {
        PrivateKey::parse(pem.as_bytes(), "PEM text".into())
    }

    /// The key in the PEM file at `path` (see [`from_pem`](Self::from_pem)).
    ///
    /// Errors: as [`from_pem`](Self::from_pem), and
    /// [`KeyProblem::Unreadable`] when the file cannot be read; each names
    /// the path.
    pub fn from_pem_file(path: impl AsRef<Path>) -> Result<PrivateKey, AuthError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| AuthError::Key {
            origin: origin.clone(),
            problem: KeyProblem::Unreadable(e.kind().to_string()),
        })?;
        PrivateKey::parse(&bytes, origin)
    }

    fn parse(pem: &[u8], origin: String) -> Result<PrivateKey, AuthError> {
        let fail = |problem| AuthError::Key {
            origin: origin.clone(),
            problem,
        };
        // The PEM reader's own error text is not shown: it may quote a line.
        let der = PrivateKeyDer::from_pem_slice(pem).map_err(|_| fail(KeyProblem::NotPem))?;
        let rejected = |e: ring::error::KeyRejected| fail(KeyProblem::Malformed(e.to_string()));
        let pair = match &der {
            PrivateKeyDer::Sec1(_) => return Err(fail(KeyProblem::Sec1)),
            PrivateKeyDer::Pkcs1(k) => {
                Pair::Rs256(RsaKeyPair::from_der(k.secret_pkcs1_der()).map_err(rejected)?)
            }
            PrivateKeyDer::Pkcs8(k) => {
                let bytes = k.secret_pkcs8_der();
                let head = &bytes[..bytes.len().min(40)];
                if contains(head, OID_RSA) {
                    Pair::Rs256(RsaKeyPair::from_pkcs8(bytes).map_err(rejected)?)
                } else if contains(head, OID_EC_PUBLIC_KEY) && contains(head, OID_P256) {
                    Pair::Es256(
                        EcdsaKeyPair::from_pkcs8(
                            &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
                            bytes,
                            &SystemRandom::new(),
                        )
                        .map_err(rejected)?,
                    )
                } else {
                    let what = describe_pkcs8(bytes).unwrap_or("a key of an unknown type");
                    return Err(fail(KeyProblem::UnsupportedKeyType(what.into())));
                }
            }
            _ => return Err(fail(KeyProblem::NotPem)),
        };
        Ok(PrivateKey {
            pair,
            origin,
            key_id: None,
        })
    }

    /// Requires the key to sign with the algorithm named `name` (`ES256`,
    /// `RS256`): a configuration that says which algorithm is meant is
    /// checked against the key it points to.
    ///
    /// Errors: [`KeyProblem::UnsupportedAlgorithm`] for another name,
    /// [`KeyProblem::WrongAlgorithm`] for a key of the other kind.
    pub fn require_algorithm(self, name: &str) -> Result<PrivateKey, AuthError> {
        let fail = |problem| AuthError::Key {
            origin: self.origin.clone(),
            problem,
        };
        let wanted = SigningAlgorithm::from_name(name)
            .ok_or_else(|| fail(KeyProblem::UnsupportedAlgorithm(name.to_owned())))?;
        if wanted != self.algorithm() {
            return Err(fail(KeyProblem::WrongAlgorithm {
                configured: wanted.name().into(),
                key: self.algorithm().name().into(),
            }));
        }
        Ok(self)
    }

    /// Sets the `kid` header of the assertions it signs (the key's id at
    /// the authorization server, when it has several).
    pub fn with_key_id(mut self, kid: impl Into<String>) -> PrivateKey {
        self.key_id = Some(kid.into());
        self
    }

    /// The algorithm it signs with.
    pub fn algorithm(&self) -> SigningAlgorithm {
        match self.pair {
            Pair::Es256(_) => SigningAlgorithm::Es256,
            Pair::Rs256(_) => SigningAlgorithm::Rs256,
        }
    }

    /// Where it came from (a file path, or "PEM text").
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The public key's bytes (for tests that verify a signature): the
    /// uncompressed EC point, or the RSA public key DER.
    pub fn public_key_bytes(&self) -> Vec<u8> {
        match &self.pair {
            Pair::Es256(k) => k.public_key().as_ref().to_vec(),
            Pair::Rs256(k) => k.public_key().as_ref().to_vec(),
        }
    }

    /// Checks that the authorization server accepts the key's algorithm,
    /// when it lists what it accepts.
    pub(crate) fn check_accepted(&self, accepted: Option<&[String]>) -> Result<(), AuthError> {
        let Some(accepted) = accepted else {
            return Ok(());
        };
        let alg = self.algorithm().name();
        if accepted.iter().any(|a| a == alg) {
            return Ok(());
        }
        Err(AuthError::Key {
            origin: self.origin.clone(),
            problem: KeyProblem::NotAccepted {
                key: alg.into(),
                accepted: accepted.join(", "),
            },
        })
    }

    /// A compact JWS of `claims` with header `alg`, `typ` `JWT` and `kid`.
    pub(crate) fn sign(&self, claims: &Value) -> Result<Secret, AuthError> {
        let mut header = json!({"alg": self.algorithm().name(), "typ": "JWT"});
        if let Some(kid) = &self.key_id {
            header["kid"] = Value::String(kid.clone());
        }
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let rng = SystemRandom::new();
        let failed = || AuthError::Key {
            origin: self.origin.clone(),
            problem: KeyProblem::Malformed("signing failed".into()),
        };
        let sig = match &self.pair {
            Pair::Es256(k) => k
                .sign(&rng, input.as_bytes())
                .map_err(|_| failed())?
                .as_ref()
                .to_vec(),
            Pair::Rs256(k) => {
                let mut sig = vec![0u8; k.public().modulus_len()];
                k.sign(
                    &signature::RSA_PKCS1_SHA256,
                    &rng,
                    input.as_bytes(),
                    &mut sig,
                )
                .map_err(|_| failed())?;
                sig
            }
        };
        Ok(Secret::new(format!(
            "{input}.{}",
            URL_SAFE_NO_PAD.encode(sig)
        )))
    }
}

/// Seconds since the epoch, now.
pub(crate) fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The claims of a client assertion (RFC 7523 § 3): `iss` = `sub` = the
/// client id, `aud` = the authorization server's issuer, a fresh `jti`,
/// `iat` now, `exp` [`CLIENT_ASSERTION_LIFETIME_SECS`] later.
pub(crate) fn client_assertion_claims(client_id: &str, audience: &str, now: u64) -> Value {
    json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "jti": random_token(16),
        "iat": now,
        "exp": now + CLIENT_ASSERTION_LIFETIME_SECS,
    })
}

/// The claims of `jwt`, read without verifying its signature (the
/// client only looks at `exp` before sending what it was given).
pub(crate) fn unverified_claims(jwt: &str) -> Option<Map<String, Value>> {
    let mut parts = jwt.split('.');
    let (_header, payload, _sig) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let bytes = URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    match serde_json::from_slice::<Value>(&bytes).ok()? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// Checks that `jwt` is a JWT whose `exp` (when it has one) has not
/// passed at `now`. The signature is the receiver's to verify; this only
/// keeps an expired assertion from being sent.
///
/// Errors: [`AuthError::Assertion`] with [`AssertionProblem::NotAJwt`] or
/// [`AssertionProblem::Expired`].
pub(crate) fn check_assertion(
    jwt: &str,
    what: &'static str,
    origin: &str,
    now: u64,
) -> Result<(), AuthError> {
    let fail = |problem| AuthError::Assertion {
        what,
        origin: origin.to_owned(),
        problem,
    };
    let claims = unverified_claims(jwt).ok_or_else(|| fail(AssertionProblem::NotAJwt))?;
    if let Some(exp) = claims.get("exp").and_then(Value::as_f64) {
        // RFC 7519 NumericDate may carry a fraction.
        let exp = exp.max(0.0) as u64;
        if exp <= now {
            return Err(fail(AssertionProblem::Expired {
                exp,
                seconds_ago: now - exp,
            }));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EC_PEM: &str = include_str!("../tests/keys/ec-p256.pem");
    const RSA_PEM: &str = include_str!("../tests/keys/rsa-2048.pem");
    const RSA_PKCS1_PEM: &str = include_str!("../tests/keys/rsa-2048-pkcs1.pem");

    fn b64json(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn client_assertion_claims_name_the_client_and_the_issuer() {
        let c = client_assertion_claims("cid", "https://as.example", 1000);
        assert_eq!(c["iss"], "cid");
        assert_eq!(c["sub"], "cid");
        assert_eq!(c["aud"], "https://as.example");
        assert_eq!(c["iat"], 1000);
        assert_eq!(c["exp"], 1000 + CLIENT_ASSERTION_LIFETIME_SECS);
        let jti = c["jti"].as_str().unwrap();
        assert!(jti.len() >= 16);
        let again = client_assertion_claims("cid", "https://as.example", 1000);
        assert_ne!(again["jti"], c["jti"], "every assertion has its own jti");
    }

    #[test]
    fn an_es256_assertion_verifies_with_the_public_key() {
        let key = PrivateKey::from_pem(EC_PEM).unwrap().with_key_id("k1");
        assert_eq!(key.algorithm(), SigningAlgorithm::Es256);
        let claims = client_assertion_claims("cid", "https://as", now_secs());
        let jwt = key.sign(&claims).unwrap();
        let parts: Vec<&str> = jwt.expose().split('.').collect();
        assert_eq!(parts.len(), 3);
        let header = b64json(parts[0]);
        assert_eq!(header, json!({"alg": "ES256", "typ": "JWT", "kid": "k1"}));
        assert_eq!(b64json(parts[1]), claims);
        let public = signature::UnparsedPublicKey::new(
            &signature::ECDSA_P256_SHA256_FIXED,
            key.public_key_bytes(),
        );
        let sig = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        public
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
            .expect("the signature verifies");
        assert!(!format!("{key:?}").contains("MIGH"));
    }

    #[test]
    fn an_rs256_assertion_verifies_from_pkcs8_and_pkcs1() {
        for pem in [RSA_PEM, RSA_PKCS1_PEM] {
            let key = PrivateKey::from_pem(pem).unwrap();
            assert_eq!(key.algorithm(), SigningAlgorithm::Rs256);
            let jwt = key.sign(&json!({"a": 1})).unwrap();
            let parts: Vec<&str> = jwt.expose().split('.').collect();
            assert_eq!(b64json(parts[0])["alg"], "RS256");
            let public = signature::UnparsedPublicKey::new(
                &signature::RSA_PKCS1_2048_8192_SHA256,
                key.public_key_bytes(),
            );
            let sig = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
            public
                .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
                .expect("the signature verifies");
        }
    }

    #[test]
    fn key_parsing_errors_name_what_is_wrong() {
        let problem = |pem: &str| match PrivateKey::from_pem(pem) {
            Err(AuthError::Key { problem, .. }) => problem,
            other => panic!("expected a key error, got {other:?}"),
        };
        assert_eq!(problem("not a key"), KeyProblem::NotPem);
        assert_eq!(
            problem("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
            KeyProblem::NotPem
        );
        assert_eq!(
            problem(include_str!("../tests/keys/ec-p256-sec1.pem")),
            KeyProblem::Sec1
        );
        assert_eq!(
            problem(include_str!("../tests/keys/ed25519.pem")),
            KeyProblem::UnsupportedKeyType("an Ed25519 key".into())
        );
        assert_eq!(
            problem(include_str!("../tests/keys/ec-p384.pem")),
            KeyProblem::UnsupportedKeyType("an EC P-384 key".into())
        );
        // A public key where a private one belongs.
        assert_eq!(
            problem(include_str!("../tests/keys/ec-p256.pub.pem")),
            KeyProblem::NotPem
        );
        // A truncated P-256 key: the right algorithm, bad DER.
        let truncated = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n";
        assert!(matches!(problem(truncated), KeyProblem::Malformed(_)));
        // An RSA PKCS#1 section with garbage inside.
        let rsa = "-----BEGIN RSA PRIVATE KEY-----\nMAMCAQA=\n-----END RSA PRIVATE KEY-----\n";
        assert!(matches!(problem(rsa), KeyProblem::Malformed(_)));
    }

    #[test]
    fn a_key_of_the_other_algorithm_is_refused() {
        let key = PrivateKey::from_pem(EC_PEM).unwrap();
        match key.require_algorithm("RS256") {
            Err(AuthError::Key {
                problem: KeyProblem::WrongAlgorithm { configured, key },
                ..
            }) => assert_eq!((configured.as_str(), key.as_str()), ("RS256", "ES256")),
            other => panic!("{other:?}"),
        }
        let key = PrivateKey::from_pem(EC_PEM).unwrap();
        assert!(matches!(
            key.require_algorithm("HS256"),
            Err(AuthError::Key {
                problem: KeyProblem::UnsupportedAlgorithm(_),
                ..
            })
        ));
        let key = PrivateKey::from_pem(EC_PEM).unwrap();
        assert!(key.check_accepted(Some(&["ES256".into()])).is_ok());
        assert!(key.check_accepted(None).is_ok());
        let e = key.check_accepted(Some(&["RS256".into()])).unwrap_err();
        assert!(e.to_string().contains("does not accept"), "{e}");
    }

    #[test]
    fn a_missing_key_file_is_named() {
        let e = PrivateKey::from_pem_file("/nonexistent/key.pem").unwrap_err();
        assert!(e.to_string().contains("/nonexistent/key.pem"), "{e}");
    }

    #[test]
    fn expiry_is_checked_without_a_signature() {
        let jwt = |claims: Value| {
            format!(
                "{}.{}.sig",
                URL_SAFE_NO_PAD.encode(r#"{"alg":"ES256"}"#),
                URL_SAFE_NO_PAD.encode(claims.to_string())
            )
        };
        assert!(check_assertion(&jwt(json!({"exp": 2000})), "workload JWT", "f", 1000).is_ok());
        assert!(check_assertion(&jwt(json!({"sub": "x"})), "workload JWT", "f", 1000).is_ok());
        match check_assertion(&jwt(json!({"exp": 940})), "workload JWT", "f", 1000) {
            Err(AuthError::Assertion {
                problem: AssertionProblem::Expired { exp, seconds_ago },
                ..
            }) => assert_eq!((exp, seconds_ago), (940, 60)),
            other => panic!("{other:?}"),
        }
        for bad in ["", "a.b", "a.b.c.d", "x.!!!.y"] {
            assert!(matches!(
                check_assertion(bad, "workload JWT", "f", 1000),
                Err(AuthError::Assertion {
                    problem: AssertionProblem::NotAJwt,
                    ..
                })
            ));
        }
    }
}
