//! PKCE with `S256` (RFC 7636; spec `basic/authorization` § Authorization
//! Code Protection): a random verifier and its challenge,
//! `BASE64URL(SHA256(verifier))`.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore as _;
use sha2::{Digest as _, Sha256};

use crate::secret::Secret;

/// A PKCE pair: the verifier (secret, sent on the token request) and the
/// challenge (sent on the authorization request).
#[derive(Debug, Clone)]
pub(crate) struct Pkce {
    pub(crate) verifier: Secret,
    pub(crate) challenge: String,
}

impl Pkce {
    /// A fresh pair: 32 random bytes, base64url (43 characters, inside
    /// RFC 7636's 43..=128).
    pub(crate) fn generate() -> Pkce {
        let verifier = random_token(32);
        let challenge = s256(&verifier);
        Pkce {
            verifier: Secret::new(verifier),
            challenge,
        }
    }
}

/// `BASE64URL(SHA256(verifier))`.
pub(crate) fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// `n` random bytes from the OS-seeded generator, base64url.
pub(crate) fn random_token(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7636 Appendix B.
    #[test]
    fn s256_matches_the_rfc_example() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn verifiers_are_fresh_and_well_formed() {
        let a = Pkce::generate();
        let b = Pkce::generate();
        assert_ne!(a.verifier, b.verifier);
        let v = a.verifier.expose();
        assert_eq!(v.len(), 43);
        assert!(
            v.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        );
        assert_eq!(a.challenge, s256(v));
    }
}
