//! The authorization request and the checks on its response (spec
//! `basic/authorization` § Authorization Code Protection, § Resource
//! Parameter Implementation, § Authorization Response Validation):
//! the URL with PKCE `S256`, `state`, `resource` and `scope`; then `state`
//! compared, RFC 9207 `iss` compared as the exact string before anything
//! else of the response is acted on, an `error` reported, the `code` taken.

use std::sync::Arc;

use url::Url;

use crate::error::{AuthError, MetadataProblem, ResponseProblem};
use crate::metadata::AuthorizationServerMetadata;
use crate::secret::Secret;
use crate::user_agent::CallbackParams;

/// What the authorization request carries.
pub(crate) struct AuthorizationRequest<'a> {
    pub(crate) client_id: &'a str,
    pub(crate) redirect_uri: &'a str,
    pub(crate) code_challenge: &'a str,
    pub(crate) state: &'a str,
    pub(crate) resource: &'a str,
    pub(crate) scope: Option<&'a str>,
}

/// The authorization URL: the endpoint with the request's parameters added
/// to any query it already has.
///
/// Errors: `Metadata` when the endpoint is not a URL.
pub(crate) fn authorization_url(
    metadata: &AuthorizationServerMetadata,
    request: &AuthorizationRequest<'_>,
) -> Result<String, AuthError> {
    let mut url =
        Url::parse(&metadata.authorization_endpoint).map_err(|e| AuthError::Metadata {
            what: "authorization server metadata",
            url: metadata.issuer.clone(),
            reason: MetadataProblem::AuthorizationEndpointNotAUrl,
            source: Some(Arc::new(e)),
        })?;
    {
        let mut q = url.query_pairs_mut();
        q.append_pair("response_type", "code");
        q.append_pair("client_id", request.client_id);
        q.append_pair("redirect_uri", request.redirect_uri);
        q.append_pair("code_challenge", request.code_challenge);
        q.append_pair("code_challenge_method", "S256");
        q.append_pair("state", request.state);
        q.append_pair("resource", request.resource);
        if let Some(scope) = request.scope {
            q.append_pair("scope", scope);
        }
    }
    Ok(url.to_string())
}

/// The `code` of a valid authorization response.
///
/// Checks, in order: `state` is the one sent; `iss` as RFC 9207 and the
/// spec say (advertised: must be present and identical to the issuer; not
/// advertised: compared when present; no normalization); then an `error`
/// is reported, else `code` must be present.
///
/// Errors: `AuthorizationResponse`.
pub(crate) fn validate_response(
    params: &CallbackParams,
    expected_state: &str,
    metadata: &AuthorizationServerMetadata,
) -> Result<Secret, AuthError> {
    let reject = AuthError::response;
    match params.get("state") {
        Some(s) if s == expected_state => {}
        Some(_) => return Err(reject(ResponseProblem::StateMismatch)),
        None => return Err(reject(ResponseProblem::NoState)),
    }
    match (
        metadata.authorization_response_iss_parameter_supported,
        params.get("iss"),
    ) {
        (_, Some(iss)) if iss != metadata.issuer => {
            return Err(reject(ResponseProblem::IssuerMismatch));
        }
        (true, None) => {
            return Err(reject(ResponseProblem::NoIssuer));
        }
        _ => {}
    }
    if let Some(error) = params.get("error") {
        return Err(AuthError::AuthorizationResponse {
            reason: ResponseProblem::Refused,
            error: Some(error.to_owned()),
        });
    }
    match params.get("code") {
        Some(code) if !code.is_empty() => Ok(Secret::new(code)),
        _ => Err(reject(ResponseProblem::NoCode)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> CallbackParams {
        CallbackParams::new(
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        )
    }

    fn metadata(advertised: bool) -> AuthorizationServerMetadata {
        let mut m = AuthorizationServerMetadata::fallback("https://as.example.com");
        m.authorization_response_iss_parameter_supported = advertised;
        m
    }

    /// The six `iss` cases of the spec, plus state and error handling.
    #[test]
    fn response_checks() {
        let iss = "https://as.example.com";
        let ok =
            |p: &[(&str, &str)], adv: bool| validate_response(&params(p), "st", &metadata(adv));
        // advertised + present and equal
        assert_eq!(
            ok(&[("code", "c"), ("state", "st"), ("iss", iss)], true)
                .unwrap()
                .expose(),
            "c"
        );
        // neither advertised nor sent
        assert!(ok(&[("code", "c"), ("state", "st")], false).is_ok());
        // not advertised, present and equal
        assert!(ok(&[("code", "c"), ("state", "st"), ("iss", iss)], false).is_ok());
        let rejected: [(&[(&str, &str)], bool); 7] = [
            // advertised + missing
            (&[("code", "c"), ("state", "st")], true),
            // wrong issuer
            (
                &[
                    ("code", "c"),
                    ("state", "st"),
                    ("iss", "https://evil.example.com"),
                ],
                true,
            ),
            // unexpected and wrong
            (
                &[
                    ("code", "c"),
                    ("state", "st"),
                    ("iss", "https://evil.example.com"),
                ],
                false,
            ),
            // normalized (trailing slash) is not identical
            (
                &[
                    ("code", "c"),
                    ("state", "st"),
                    ("iss", "https://as.example.com/"),
                ],
                true,
            ),
            // wrong state, no state
            (&[("code", "c"), ("state", "other"), ("iss", iss)], true),
            (&[("code", "c"), ("iss", iss)], true),
            // no code
            (&[("state", "st"), ("iss", iss)], true),
        ];
        for (p, adv) in rejected {
            assert!(ok(p, adv).is_err(), "{p:?} advertised={adv}");
        }
        // An error with a bad iss is not acted on: the iss problem is reported.
        let e = ok(
            &[
                ("error", "access_denied"),
                ("state", "st"),
                ("iss", "https://x"),
            ],
            true,
        )
        .unwrap_err();
        assert!(matches!(
            e,
            AuthError::AuthorizationResponse { error: None, .. }
        ));
        let e = ok(
            &[("error", "access_denied"), ("state", "st"), ("iss", iss)],
            true,
        )
        .unwrap_err();
        assert!(
            matches!(e, AuthError::AuthorizationResponse { error: Some(ref e), .. } if e == "access_denied")
        );
    }

    #[test]
    fn the_url_carries_every_parameter() {
        let mut m = metadata(false);
        m.authorization_endpoint = "https://as.example.com/authorize?tenant=t".into();
        let url = authorization_url(
            &m,
            &AuthorizationRequest {
                client_id: "cid",
                redirect_uri: "http://localhost:3000/callback",
                code_challenge: "ch",
                state: "st",
                resource: "https://s.example.com/mcp",
                scope: Some("a b"),
            },
        )
        .unwrap();
        let p = CallbackParams::from_url(&url).unwrap();
        for (k, v) in [
            ("tenant", "t"),
            ("response_type", "code"),
            ("client_id", "cid"),
            ("redirect_uri", "http://localhost:3000/callback"),
            ("code_challenge", "ch"),
            ("code_challenge_method", "S256"),
            ("state", "st"),
            ("resource", "https://s.example.com/mcp"),
            ("scope", "a b"),
        ] {
            assert_eq!(p.get(k), Some(v), "{k}");
        }
    }
}
