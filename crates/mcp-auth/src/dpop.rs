//! DPoP, sender-constrained access tokens (RFC 9449, as the MCP DPoP
//! extension profiles it, SEP-1932): the key pair of one authorization
//! server ([`DpopKey`], ES256 on P-256, generated and signed with `ring`,
//! kept in the credential store as a [`DpopKeyRecord`] so that a token
//! bound to it stays usable in the next process), the proof JWT
//! ([`DpopKey::proof`]), and the nonces servers ask for ([`Nonces`],
//! remembered per origin from every reply).
//!
//! - A proof's header is `typ: dpop+jwt`, `alg: ES256` and the public
//!   `jwk`; its claims a fresh `jti`, `htm`, `htu` (the URL without query
//!   and fragment, RFC 9449 § 4.2), `iat`, and, when a token goes along,
//!   `ath` (base64url SHA-256 of the token). To the MCP server it also
//!   carries `content_digest` (RFC 9530 `sha-256=:…:` of the body), which
//!   the extension's draft profile requires and RFC 9449 lets a server
//!   ignore; a token request's proof carries none (the profile says not
//!   to).
//! - A server that wants a nonce (`use_dpop_nonce`: 400 from the
//!   authorization server, 401 with `WWW-Authenticate: DPoP` from the MCP
//!   server) gets one retry with the nonce it sent in `DPoP-Nonce`; one
//!   that wants a new nonce again at once is looping, and the request fails
//!   with [`DpopProblem::NonceLoop`].
//!
//! Keys and proofs are secrets: the key's `Debug` shows its thumbprint
//! only, a proof is a [`Secret`], and neither is logged.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use http::{HeaderMap, HeaderValue};
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, KeyPair as _};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::challenge::header_challenges;
use crate::error::{AuthError, DpopProblem};
use crate::jwt::now_secs;
use crate::pkce::random_token;
use crate::secret::Secret;
use crate::store::DpopKeyRecord;

/// The only JWS algorithm this client signs proofs with: ES256.
pub const DPOP_ALGORITHM: &str = "ES256";

/// The request header that carries a proof (RFC 9449 § 4.1).
pub(crate) const DPOP_HEADER: &str = "dpop";

/// The reply header that carries a server's nonce (RFC 9449 § 8, § 9).
pub(crate) const DPOP_NONCE_HEADER: &str = "dpop-nonce";

fn fail(problem: DpopProblem) -> AuthError {
    AuthError::Dpop { problem }
}

/// A key pair that signs DPoP proofs: ES256 on P-256.
pub(crate) struct DpopKey {
    pair: EcdsaKeyPair,
    /// The public key as a JWK (`kty`, `crv`, `x`, `y`).
    jwk: Value,
    /// Its RFC 7638 thumbprint, base64url (what a bound token's `cnf.jkt`
    /// holds).
    thumbprint: String,
}

impl fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpopKey")
            .field("thumbprint", &self.thumbprint)
            .finish_non_exhaustive()
    }
}

/// What one proof is for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProofFor<'a> {
    /// The HTTP method (`htm`).
    pub(crate) method: &'a str,
    /// The URL (`htu` is it without query and fragment).
    pub(crate) url: &'a str,
    /// The server's nonce for the URL's origin, if it gave one.
    pub(crate) nonce: Option<&'a str>,
    /// The access token that goes along (`ath`), if any.
    pub(crate) access_token: Option<&'a str>,
    /// The body, to a resource server (`content_digest`).
    pub(crate) body: Option<&'a [u8]>,
}

impl DpopKey {
    /// A new key pair, and its record for the store.
    ///
    /// Errors: [`DpopProblem::Crypto`] when the system cannot produce one.
    pub(crate) fn generate() -> Result<(DpopKey, DpopKeyRecord), AuthError> {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| fail(DpopProblem::Crypto("generate a DPoP key")))?;
        let record = DpopKeyRecord {
            algorithm: DPOP_ALGORITHM.to_owned(),
            private_key: Secret::new(URL_SAFE_NO_PAD.encode(pkcs8.as_ref())),
            created_at: Some(SystemTime::now()),
        };
        let key = DpopKey::from_record(&record)?;
        Ok((key, record))
    }

    /// The key of a stored record.
    ///
    /// Errors: [`DpopProblem::BadStoredKey`] for another algorithm or a
    /// key that does not parse (what is wrong, never the key).
    pub(crate) fn from_record(record: &DpopKeyRecord) -> Result<DpopKey, AuthError> {
        if record.algorithm != DPOP_ALGORITHM {
            return Err(fail(DpopProblem::BadStoredKey(format!(
                "algorithm {:?}, not {DPOP_ALGORITHM}",
                record.algorithm
            ))));
        }
        let der = URL_SAFE_NO_PAD
            .decode(record.private_key.expose())
            .map_err(|_| fail(DpopProblem::BadStoredKey("not base64url".into())))?;
        let pair = EcdsaKeyPair::from_pkcs8(
            &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            &der,
            &SystemRandom::new(),
        )
        .map_err(|e| fail(DpopProblem::BadStoredKey(format!("not a P-256 key: {e}"))))?;
        // The uncompressed point: 0x04, x (32 bytes), y (32 bytes).
        let point = pair.public_key().as_ref();
        if point.len() != 65 || point[0] != 4 {
            return Err(fail(DpopProblem::BadStoredKey(
                "unexpected public key form".into(),
            )));
        }
        let x = URL_SAFE_NO_PAD.encode(&point[1..33]);
        let y = URL_SAFE_NO_PAD.encode(&point[33..65]);
        let thumbprint = jwk_thumbprint(&x, &y);
        Ok(DpopKey {
            pair,
            jwk: json!({"kty": "EC", "crv": "P-256", "x": x, "y": y}),
            thumbprint,
        })
    }

    /// The RFC 7638 thumbprint of the public key (a bound token's
    /// `cnf.jkt`).
    pub(crate) fn thumbprint(&self) -> &str {
        &self.thumbprint
    }

    /// A fresh proof for `what`, issued now.
    ///
    /// Errors: [`DpopProblem::BadUrl`], [`DpopProblem::Crypto`].
    pub(crate) fn proof(&self, what: &ProofFor<'_>) -> Result<Secret, AuthError> {
        let claims = proof_claims(what, &random_token(18), now_secs())?;
        self.sign(&claims)
    }

    /// The compact JWS of `claims` with the proof header.
    fn sign(&self, claims: &Value) -> Result<Secret, AuthError> {
        let header = json!({"typ": "dpop+jwt", "alg": DPOP_ALGORITHM, "jwk": self.jwk});
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let sig = self
            .pair
            .sign(&SystemRandom::new(), input.as_bytes())
            .map_err(|_| fail(DpopProblem::Crypto("sign a DPoP proof")))?;
        Ok(Secret::new(format!(
            "{input}.{}",
            URL_SAFE_NO_PAD.encode(sig.as_ref())
        )))
    }
}

/// The RFC 7638 thumbprint of the P-256 public key (`x`, `y` base64url):
/// SHA-256 of the required members in lexicographic order, base64url.
fn jwk_thumbprint(x: &str, y: &str) -> String {
    let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
    URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
}

/// The claims of a proof for `what` with `jti`, issued at `iat`.
///
/// Errors: [`DpopProblem::BadUrl`] when `what.url` has no scheme or host.
pub(crate) fn proof_claims(what: &ProofFor<'_>, jti: &str, iat: u64) -> Result<Value, AuthError> {
    let htu = htu(what.url).ok_or_else(|| fail(DpopProblem::BadUrl))?;
    let mut claims = json!({
        "jti": jti,
        "htm": what.method,
        "htu": htu,
        "iat": iat,
    });
    if let Some(nonce) = what.nonce {
        claims["nonce"] = Value::String(nonce.to_owned());
    }
    if let Some(token) = what.access_token {
        claims["ath"] = Value::String(URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())));
    }
    if let Some(body) = what.body {
        claims["content_digest"] = Value::String(format!(
            "sha-256=:{}:",
            STANDARD.encode(Sha256::digest(body))
        ));
    }
    Ok(claims)
}

/// The `htu` of a request to `url`: the URL without its query and
/// fragment (RFC 9449 § 4.2), scheme and host lowercased, a default port
/// left out (the normalisation of RFC 3986 § 6.2.2 and § 6.2.3 that a
/// server compares with). `None` for a URL without scheme or host.
pub(crate) fn htu(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    parsed.host_str()?;
    let mut out = format!("{}://", parsed.scheme());
    out.push_str(&origin_authority(&parsed));
    out.push_str(parsed.path());
    Some(out)
}

/// `host[:port]` of `url`, the port only when it is not the scheme's
/// default (the `url` crate already drops a default port).
fn origin_authority(url: &url::Url) -> String {
    let host = match url.host() {
        Some(url::Host::Ipv6(ip)) => format!("[{ip}]"),
        Some(h) => h.to_string(),
        None => String::new(),
    };
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host,
    }
}

/// The origin (`scheme://host[:port]`) of `url`, what nonces are kept per;
/// `None` for a URL without scheme or host.
pub(crate) fn origin(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    parsed.host_str()?;
    Some(format!(
        "{}://{}",
        parsed.scheme(),
        origin_authority(&parsed)
    ))
}

/// The `error` and `error_description` of a `DPoP` challenge in
/// `headers`, when there is one.
pub(crate) fn dpop_challenge(headers: &HeaderMap) -> Option<(Option<String>, Option<String>)> {
    let challenges = header_challenges(headers);
    let dpop = challenges
        .iter()
        .find(|c| c.scheme.eq_ignore_ascii_case("dpop"))?;
    Some((
        dpop.param("error").map(str::to_owned),
        dpop.param("error_description").map(str::to_owned),
    ))
}

/// The `DPoP-Nonce` of a reply, when it has a usable one.
pub(crate) fn nonce_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get(DPOP_NONCE_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
}

/// What one origin said about nonces.
#[derive(Debug, Default, Clone)]
struct OriginNonce {
    /// The nonce to put in the next proof.
    nonce: Option<String>,
    /// `nonce` went out in a proof since it was learnt.
    sent: bool,
    /// Nonce demands (`use_dpop_nonce`) since the last reply that was not
    /// one, each with a nonce not tried yet.
    demands: u32,
}

/// The nonces servers gave, per origin (RFC 9449 § 8.2: a server may send
/// a new one in any reply), and how many times in a row each asked for a
/// new one: what tells a nonce loop from a nonce that just expired.
#[derive(Debug, Default)]
pub(crate) struct Nonces {
    by_origin: Mutex<HashMap<String, OriginNonce>>,
}

/// What a `use_dpop_nonce` demand calls for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NonceDemand {
    /// Send the request again with the new nonce.
    Retry,
    /// Give up with this problem.
    GiveUp(DpopProblem),
}

impl Nonces {
    fn with<T>(&self, f: impl FnOnce(&mut HashMap<String, OriginNonce>) -> T) -> T {
        let mut map = self.by_origin.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut map)
    }

    /// The nonce to put in a proof to `origin` now, marked as sent.
    pub(crate) fn for_proof(&self, origin: &str) -> Option<String> {
        self.with(|m| {
            let entry = m.get_mut(origin)?;
            let nonce = entry.nonce.clone()?;
            entry.sent = true;
            Some(nonce)
        })
    }

    /// Learns from a reply of `origin`: its `DPoP-Nonce` (`nonce`), and
    /// whether it was a demand for one (`demand`). A demand counts when
    /// its nonce is new or the remembered one was already tried (a second
    /// request refused with the nonce that another's refusal just taught
    /// is not a loop); any other reply ends a run of demands.
    pub(crate) fn learn(&self, origin: &str, nonce: Option<String>, demand: bool) {
        self.with(|m| {
            let entry = m.entry(origin.to_owned()).or_default();
            if demand {
                let new = nonce.is_some() && nonce != entry.nonce;
                if new || entry.sent || nonce.is_none() {
                    entry.demands += 1;
                }
            } else {
                entry.demands = 0;
            }
            if let Some(n) = nonce
                && entry.nonce.as_deref() != Some(n.as_str())
            {
                entry.nonce = Some(n);
                entry.sent = false;
            }
        });
    }

    /// What to do about a `use_dpop_nonce` demand of `origin` that
    /// [`learn`](Self::learn) was already shown: one retry per run of
    /// demands, none when no nonce was ever given.
    pub(crate) fn after_demand(&self, origin: &str) -> NonceDemand {
        self.with(|m| match m.get(origin) {
            None | Some(OriginNonce { nonce: None, .. }) => {
                NonceDemand::GiveUp(DpopProblem::NonceMissing {
                    origin: origin.to_owned(),
                })
            }
            Some(entry) if entry.demands > 1 => NonceDemand::GiveUp(DpopProblem::NonceLoop {
                origin: origin.to_owned(),
            }),
            Some(_) => NonceDemand::Retry,
        })
    }
}

/// What one [`OAuth`](crate::OAuth) keeps of DPoP between requests: the
/// nonces of every origin, the keys read or made per issuer, and the
/// token obtained after a refusal of proofs (`invalid_dpop_proof`), whose
/// own refusal ends the retries.
#[derive(Debug, Default)]
pub(crate) struct DpopState {
    pub(crate) nonces: Arc<Nonces>,
    pub(crate) keys: Mutex<HashMap<String, Arc<DpopKey>>>,
    /// The revision of the tokens a fresh authorization after
    /// `invalid_dpop_proof` stored.
    pub(crate) renewed: Mutex<Option<u64>>,
}

/// The `DPoP` header value of `proof`, marked sensitive.
///
/// Errors: [`DpopProblem::Crypto`] (a proof is base64url and dots: never).
pub(crate) fn proof_header(proof: &Secret) -> Result<HeaderValue, AuthError> {
    let mut value = HeaderValue::try_from(proof.expose())
        .map_err(|_| fail(DpopProblem::Crypto("put a DPoP proof in a header")))?;
    value.set_sensitive(true);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_carries_the_header_and_claims_rfc_9449_asks_for() {
        let (key, record) = DpopKey::generate().unwrap();
        let proof = key
            .proof(&ProofFor {
                method: "POST",
                url: "https://mcp.example.com/mcp?session=s#frag",
                nonce: Some("n-1"),
                access_token: Some("at-123"),
                body: Some(br#"{"jsonrpc":"2.0"}"#),
            })
            .unwrap();
        let parts: Vec<&str> = proof.expose().split('.').collect();
        assert_eq!(parts.len(), 3);
        let header = decode(parts[0]);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert_eq!(header["jwk"]["crv"], "P-256");
        assert!(header["jwk"].get("d").is_none(), "no private part");
        let claims = decode(parts[1]);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["nonce"], "n-1");
        assert_eq!(
            claims["ath"],
            URL_SAFE_NO_PAD.encode(Sha256::digest(b"at-123"))
        );
        assert_eq!(
            claims["content_digest"],
            format!(
                "sha-256=:{}:",
                STANDARD.encode(Sha256::digest(br#"{"jsonrpc":"2.0"}"#))
            )
        );
        let iat = claims["iat"].as_u64().unwrap();
        assert!(iat.abs_diff(now_secs()) <= 2);
        assert!(claims["jti"].as_str().unwrap().len() >= 16);
        // The signature verifies with the header's key.
        let x = URL_SAFE_NO_PAD
            .decode(header["jwk"]["x"].as_str().unwrap())
            .unwrap();
        let y = URL_SAFE_NO_PAD
            .decode(header["jwk"]["y"].as_str().unwrap())
            .unwrap();
        let mut point = vec![4u8];
        point.extend(x);
        point.extend(y);
        let public = signature::UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, point);
        public
            .verify(
                format!("{}.{}", parts[0], parts[1]).as_bytes(),
                &URL_SAFE_NO_PAD.decode(parts[2]).unwrap(),
            )
            .expect("the proof verifies with its jwk");
        // The stored record gives the same key back.
        let again = DpopKey::from_record(&record).unwrap();
        assert_eq!(again.thumbprint(), key.thumbprint());
        // No key material in Debug.
        let shown = format!("{key:?} {record:?}");
        assert!(!shown.contains(record.private_key.expose()), "{shown}");
    }

    #[test]
    fn every_proof_has_its_own_jti_and_a_token_request_proof_no_ath() {
        let (key, _) = DpopKey::generate().unwrap();
        let what = ProofFor {
            method: "POST",
            url: "https://as.example/token",
            nonce: None,
            access_token: None,
            body: None,
        };
        let jti = |p: Secret| decode(p.expose().split('.').nth(1).unwrap())["jti"].clone();
        let claims = decode(
            key.proof(&what)
                .unwrap()
                .expose()
                .split('.')
                .nth(1)
                .unwrap(),
        );
        for absent in ["ath", "nonce", "content_digest"] {
            assert!(claims.get(absent).is_none(), "{absent}: {claims}");
        }
        let a = jti(key.proof(&what).unwrap());
        let b = jti(key.proof(&what).unwrap());
        assert_ne!(a, b);
    }

    #[test]
    fn the_thumbprint_is_rfc_7638s() {
        // RFC 7638 has no EC example; this one is computed by jose's
        // calculateJwkThumbprint for the JWK of RFC 7515 § A.3.
        let x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU";
        let y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0";
        assert_eq!(
            jwk_thumbprint(x, y),
            "oKIywvGUpTVTyxMQ3bwIIeQUudfr_CkLMjCE19ECD-U"
        );
    }

    #[test]
    fn htu_leaves_out_query_and_fragment_and_normalises() {
        let cases = [
            ("https://a.example/mcp", "https://a.example/mcp"),
            ("https://a.example/mcp?x=1&y=2", "https://a.example/mcp"),
            ("https://a.example/mcp#f", "https://a.example/mcp"),
            ("HTTPS://A.Example:443/mcp/?q", "https://a.example/mcp/"),
            ("http://127.0.0.1:8080/m", "http://127.0.0.1:8080/m"),
            ("http://[::1]:80/m", "http://[::1]/m"),
            ("https://a.example", "https://a.example/"),
        ];
        for (url, want) in cases {
            assert_eq!(htu(url).as_deref(), Some(want), "{url}");
        }
        assert_eq!(htu("/relative"), None);
        assert_eq!(
            origin("https://A.example:443/x?y").as_deref(),
            Some("https://a.example")
        );
        assert_eq!(
            origin("http://localhost:3000/x").as_deref(),
            Some("http://localhost:3000")
        );
    }

    #[test]
    fn nonces_are_kept_per_origin() {
        let n = Nonces::default();
        n.learn("https://as", Some("a1".into()), false);
        n.learn("https://rs", Some("r1".into()), false);
        assert_eq!(n.for_proof("https://as").as_deref(), Some("a1"));
        assert_eq!(n.for_proof("https://rs").as_deref(), Some("r1"));
        assert_eq!(n.for_proof("https://other"), None);
        // A reply without DPoP-Nonce keeps the nonce; a new one replaces it.
        n.learn("https://rs", None, false);
        assert_eq!(n.for_proof("https://rs").as_deref(), Some("r1"));
        n.learn("https://rs", Some("r2".into()), false);
        assert_eq!(n.for_proof("https://rs").as_deref(), Some("r2"));
        assert_eq!(n.for_proof("https://as").as_deref(), Some("a1"));
    }

    #[test]
    fn a_nonce_demand_gets_one_retry_and_a_loop_none() {
        let n = Nonces::default();
        let o = "https://rs";
        // First demand: retry with its nonce.
        n.learn(o, Some("n1".into()), true);
        assert_eq!(n.after_demand(o), NonceDemand::Retry);
        assert_eq!(n.for_proof(o).as_deref(), Some("n1"));
        // A new nonce demanded at once: a loop.
        n.learn(o, Some("n2".into()), true);
        assert_eq!(
            n.after_demand(o),
            NonceDemand::GiveUp(DpopProblem::NonceLoop { origin: o.into() })
        );
        // A reply that is no demand ends the run: an expired nonce later
        // gets its one retry again.
        n.learn(o, None, false);
        n.learn(o, Some("n3".into()), true);
        assert_eq!(n.after_demand(o), NonceDemand::Retry);
    }

    #[test]
    fn concurrent_refusals_teaching_the_same_nonce_are_no_loop() {
        let n = Nonces::default();
        let o = "https://rs";
        // Two requests sent before any nonce was known, both refused with
        // the same one.
        n.learn(o, Some("n1".into()), true);
        n.learn(o, Some("n1".into()), true);
        assert_eq!(n.after_demand(o), NonceDemand::Retry);
        // The server refusing the nonce it demanded, once tried, is one.
        assert_eq!(n.for_proof(o).as_deref(), Some("n1"));
        n.learn(o, Some("n1".into()), true);
        assert!(matches!(
            n.after_demand(o),
            NonceDemand::GiveUp(DpopProblem::NonceLoop { .. })
        ));
    }

    #[test]
    fn a_demand_without_a_nonce_is_not_retried() {
        let n = Nonces::default();
        n.learn("https://rs", None, true);
        assert!(matches!(
            n.after_demand("https://rs"),
            NonceDemand::GiveUp(DpopProblem::NonceMissing { .. })
        ));
    }

    #[test]
    fn a_bad_stored_key_is_named_without_its_value() {
        let record = DpopKeyRecord {
            algorithm: "ES256".into(),
            private_key: Secret::new("not-a-key-at-all"),
            created_at: None,
        };
        let e = DpopKey::from_record(&record).unwrap_err();
        assert!(!e.to_string().contains("not-a-key-at-all"), "{e}");
        let record = DpopKeyRecord {
            algorithm: "RS256".into(),
            ..record
        };
        assert!(DpopKey::from_record(&record).is_err());
    }
}
