//! The metadata documents of OAuth discovery and the URLs they are looked
//! for at, with no I/O: Protected Resource Metadata (RFC 9728) and
//! authorization server metadata (RFC 8414, OpenID Connect Discovery), as
//! spec `basic/authorization` § Protected Resource Metadata Discovery
//! Requirements and § Authorization Server Metadata Discovery order them.
//!
//! Issuers and resources are compared as the strings the documents hold:
//! `url::Url` would add a `/` to an empty path and lower-case the host,
//! and the spec requires identical strings.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use url::Url;

/// Reads a JSON body a peer sent (a metadata document, a token,
/// registration or device authorization response, an OAuth error) as `T`.
///
/// The whole body must be UTF-8 (RFC 8259 § 8.1), as on the MCP wire:
/// `serde_json::from_slice` checks only the strings it keeps, so a body
/// with invalid UTF-8 in a member `T` ignores would otherwise be read.
/// It must be a JSON object, as every one of these documents is (RFC 8414
/// § 3.2, RFC 9728 § 3.2, RFC 6749 § 5.1 and § 5.2, RFC 7591 § 3.2.1,
/// RFC 8628 § 3.2): serde reads a struct from an array too, so `[""]`
/// would otherwise be a Protected Resource Metadata document.
///
/// A UTF-8 byte order mark opening the body is skipped (RFC 8259 § 8.1
/// lets a reader ignore it).
///
/// Errors: the body is not UTF-8, not a JSON object, or not a `T`.
pub(crate) fn read_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, serde_json::Error> {
    let body = mcp_transport::bom::strip_bom(body, &"an OAuth JSON body");
    let text = std::str::from_utf8(body).map_err(|e| {
        <serde_json::Error as serde::de::Error>::custom(format_args!(
            "the body is not UTF-8 (at byte {})",
            e.valid_up_to()
        ))
    })?;
    // JSON's whitespace (RFC 8259 § 2), then the value's first byte.
    let first = text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .bytes()
        .next();
    if first != Some(b'{') {
        // Not an object: what serde_json says of it when it is not JSON at
        // all, else that it is not an object.
        serde_json::from_str::<serde::de::IgnoredAny>(text)?;
        return Err(<serde_json::Error as serde::de::Error>::custom(
            "the body is not a JSON object",
        ));
    }
    serde_json::from_str(text)
}

/// What is wrong with a JSON body `read_json` refused, in words that hold
/// no value from it: serde's own text quotes the value of a member of the
/// wrong type (``invalid type: integer `123`, expected a string``), and a
/// token or registration response may hold a secret there. Syntax errors,
/// missing and duplicate members, and `read_json`'s own refusals quote
/// nothing and are kept.
pub(crate) fn json_shape_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let keeps = !e.is_data()
        || ["missing field", "duplicate field", "the body is not"]
            .iter()
            .any(|p| text.starts_with(p));
    if keeps {
        text
    } else {
        format!(
            "a member has the wrong type or value at line {} column {}",
            e.line(),
            e.column()
        )
    }
}

/// Protected Resource Metadata (RFC 9728 § 2): which authorization
/// servers protect the MCP server, and its scopes. Unknown fields are
/// ignored.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource identifier (must identify the MCP server, RFC 9728
    /// § 3.3).
    pub resource: String,
    /// Issuer identifiers of the authorization servers, in the server's
    /// order of preference.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// The scopes the resource uses, if it lists them.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
}

/// Authorization server metadata (RFC 8414 § 2, the fields the flow uses).
/// Unknown fields are ignored.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier.
    pub issuer: String,
    /// Where the user agent is sent to authorize.
    pub authorization_endpoint: String,
    /// Where codes and refresh tokens are exchanged.
    pub token_endpoint: String,
    /// Dynamic Client Registration (RFC 7591), when offered.
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// The scopes the authorization server knows.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// PKCE methods; the client refuses to proceed without `S256`.
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Client authentication methods at the token endpoint (RFC 8414
    /// default: `client_secret_basic`).
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// The JWS algorithms the token endpoint accepts for `private_key_jwt`
    /// client assertions (RFC 8414 § 2), e.g. `ES256`.
    #[serde(default)]
    pub token_endpoint_auth_signing_alg_values_supported: Option<Vec<String>>,
    /// Grant types.
    #[serde(default)]
    pub grant_types_supported: Option<Vec<String>>,
    /// Client ID Metadata Documents are accepted as `client_id`.
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// RFC 9207: the authorization response carries `iss`.
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    /// RFC 7009 token revocation, when offered.
    #[serde(default)]
    pub revocation_endpoint: Option<String>,
    /// RFC 8628 device authorization, when offered.
    #[serde(default)]
    pub device_authorization_endpoint: Option<String>,
    /// The JWS algorithms the server accepts in DPoP proofs (RFC 9449
    /// § 5.1), e.g. `ES256`; absent when it does not do DPoP.
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl AuthorizationServerMetadata {
    /// The endpoints a 2025-03-26 server without metadata has (spec
    /// 2025-03-26 `basic/authorization` § Fallbacks): `/authorize`,
    /// `/token`, `/register` at `base`, the origin of the MCP URL.
    pub fn fallback(base: &str) -> AuthorizationServerMetadata {
        AuthorizationServerMetadata {
            issuer: base.to_owned(),
            authorization_endpoint: format!("{base}/authorize"),
            token_endpoint: format!("{base}/token"),
            registration_endpoint: Some(format!("{base}/register")),
            scopes_supported: None,
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            token_endpoint_auth_methods_supported: None,
            token_endpoint_auth_signing_alg_values_supported: None,
            grant_types_supported: None,
            client_id_metadata_document_supported: false,
            authorization_response_iss_parameter_supported: false,
            revocation_endpoint: None,
            device_authorization_endpoint: None,
            dpop_signing_alg_values_supported: None,
        }
    }

    /// `true` when `S256` is listed in `code_challenge_methods_supported`.
    pub fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|m| m == "S256"))
    }
}

/// The origin of `url` (`scheme://host[:port]`), as `Url` serializes it.
pub(crate) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// Where Protected Resource Metadata is looked for when the challenge
/// names no URL: the path-based well-known URL for a server URL with a
/// path, then the root one (spec 2025-11-25 on).
pub(crate) fn prm_urls(server: &Url) -> Vec<String> {
    let origin = origin(server);
    let path = server.path().trim_end_matches('/');
    let root = format!("{origin}/.well-known/oauth-protected-resource");
    if path.is_empty() {
        vec![root]
    } else {
        vec![format!("{root}{path}"), root]
    }
}

/// Where the metadata of `issuer` is looked for, in the spec's order: for
/// an issuer with a path `/p`, OAuth with path insertion, OpenID Connect
/// with path insertion, OpenID Connect with path appending; without a
/// path, OAuth then OpenID Connect.
///
/// Errors: `None` when `issuer` is not an absolute URL.
pub(crate) fn as_metadata_urls(issuer: &str) -> Option<Vec<String>> {
    let url = Url::parse(issuer).ok()?;
    if !url.has_host() {
        return None;
    }
    let origin = origin(&url);
    let path = url.path().trim_end_matches('/');
    Some(if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    })
}

/// `true` when the PRM `resource` identifies the MCP server at `server`
/// (RFC 9728 § 3.3; spec `basic/authorization` § Canonical Server URI):
/// same scheme, host and port, and the resource's path is the server's
/// path or a parent of it at a segment boundary (a root PRM's resource is
/// the origin).
pub(crate) fn resource_matches(resource: &str, server: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    if resource.scheme() != server.scheme()
        || resource.host_str() != server.host_str()
        || resource.port_or_known_default() != server.port_or_known_default()
        || resource.fragment().is_some()
    {
        return false;
    }
    let want = resource.path().trim_end_matches('/');
    let have = server.path().trim_end_matches('/');
    want.is_empty() || have == want || have.starts_with(&format!("{want}/"))
}

/// The canonical URI of the MCP server (spec `basic/authorization`
/// § Canonical Server URI), the RFC 8707 `resource` when no PRM names one:
/// the URL without its fragment, and without the `/` of an empty path.
pub(crate) fn canonical_server_uri(server: &Url) -> String {
    let mut url = server.clone();
    url.set_fragment(None);
    let s = url.to_string();
    if url.path() == "/" && url.query().is_none() {
        s.trim_end_matches('/').to_owned()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn prm_is_looked_for_path_based_then_at_the_root() {
        let cases = [
            (
                "https://example.com/mcp",
                vec![
                    "https://example.com/.well-known/oauth-protected-resource/mcp",
                    "https://example.com/.well-known/oauth-protected-resource",
                ],
            ),
            (
                "http://localhost:3000/a/b/?x=1",
                vec![
                    "http://localhost:3000/.well-known/oauth-protected-resource/a/b",
                    "http://localhost:3000/.well-known/oauth-protected-resource",
                ],
            ),
            (
                "https://example.com/",
                vec!["https://example.com/.well-known/oauth-protected-resource"],
            ),
        ];
        for (server, want) in cases {
            assert_eq!(prm_urls(&u(server)), want, "{server}");
        }
    }

    #[test]
    fn as_metadata_order() {
        let cases = [
            (
                "https://auth.example.com",
                vec![
                    "https://auth.example.com/.well-known/oauth-authorization-server",
                    "https://auth.example.com/.well-known/openid-configuration",
                ],
            ),
            (
                "https://auth.example.com/",
                vec![
                    "https://auth.example.com/.well-known/oauth-authorization-server",
                    "https://auth.example.com/.well-known/openid-configuration",
                ],
            ),
            (
                "https://auth.example.com/tenant1",
                vec![
                    "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                    "https://auth.example.com/.well-known/openid-configuration/tenant1",
                    "https://auth.example.com/tenant1/.well-known/openid-configuration",
                ],
            ),
        ];
        for (issuer, want) in cases {
            assert_eq!(as_metadata_urls(issuer).unwrap(), want, "{issuer}");
        }
        assert!(as_metadata_urls("not a url").is_none());
    }

    #[test]
    fn resource_identifies_the_server() {
        let server = u("https://example.com/mcp");
        let yes = [
            "https://example.com/mcp",
            "https://example.com/mcp/",
            "https://example.com",
            "https://example.com/",
            "https://EXAMPLE.com:443/mcp",
        ];
        let no = [
            "https://evil.example.com/mcp",
            "http://example.com/mcp",
            "https://example.com:8443/mcp",
            "https://example.com/mcpx",
            "https://example.com/other",
            "https://example.com/mcp/deeper",
            "https://example.com/mcp#frag",
            "not a url",
        ];
        for r in yes {
            assert!(resource_matches(r, &server), "{r}");
        }
        for r in no {
            assert!(!resource_matches(r, &server), "{r}");
        }
    }

    #[test]
    fn canonical_uri() {
        let cases = [
            ("https://example.com/mcp", "https://example.com/mcp"),
            ("https://Example.COM/mcp#x", "https://example.com/mcp"),
            ("https://example.com/", "https://example.com"),
            ("https://example.com", "https://example.com"),
        ];
        for (server, want) in cases {
            assert_eq!(canonical_server_uri(&u(server)), want);
        }
    }

    /// Invalid UTF-8 anywhere in a body refuses it, in an ignored member
    /// too (where `serde_json::from_slice` alone would read the document).
    #[test]
    fn a_body_that_is_not_utf8_is_refused_whole() {
        let good = br#"{"issuer":"https://as","authorization_endpoint":"https://as/a","token_endpoint":"https://as/t","extra":"x"}"#;
        assert!(read_json::<AuthorizationServerMetadata>(good).is_ok());
        let mut bad = good.to_vec();
        let at = bad.len() - 3;
        bad[at] = 0xab;
        assert!(serde_json::from_slice::<AuthorizationServerMetadata>(&bad).is_ok());
        let err = read_json::<AuthorizationServerMetadata>(&bad).unwrap_err();
        assert!(err.to_string().contains("not UTF-8"), "{err}");
        let prm = b"{\"resource\":\"https://r\",\"x\":[\"\xab\"]}";
        assert!(read_json::<ProtectedResourceMetadata>(prm).is_err());
    }

    /// Every document is a JSON object: an array (which serde would read
    /// as a struct, field by field) or any other value is refused, with
    /// serde_json's own error when the body is not JSON at all.
    #[test]
    fn a_body_that_is_not_an_object_is_refused() {
        let cases: [&[u8]; 6] = [
            br#"[""]"#,
            br#" ["https://r", ["https://as"]]"#,
            br#"["https://as","https://as/a","https://as/t"]"#,
            b"\"https://r\"",
            b"null",
            b"7",
        ];
        for body in cases {
            let prm = read_json::<ProtectedResourceMetadata>(body);
            let asm = read_json::<AuthorizationServerMetadata>(body);
            for err in [prm.err(), asm.err()] {
                let err =
                    err.unwrap_or_else(|| panic!("{:?} was read", String::from_utf8_lossy(body)));
                assert!(err.to_string().contains("not a JSON object"), "{err}");
            }
        }
        let err = read_json::<ProtectedResourceMetadata>(b"[1,").unwrap_err();
        assert!(err.is_eof(), "{err}");
        let prm =
            read_json::<ProtectedResourceMetadata>(b" \r\n\t{\"resource\":\"https://r\"}").unwrap();
        assert_eq!(prm.resource, "https://r");
    }

    /// A byte order mark opening a body is skipped; one after white space
    /// is not JSON.
    #[test]
    fn a_byte_order_mark_opening_a_body_is_skipped() {
        let prm =
            read_json::<ProtectedResourceMetadata>(b"\xEF\xBB\xBF{\"resource\":\"https://r\"}")
                .unwrap();
        assert_eq!(prm.resource, "https://r");
        assert!(
            read_json::<ProtectedResourceMetadata>(b" \xEF\xBB\xBF{\"resource\":\"https://r\"}")
                .is_err()
        );
    }

    #[test]
    fn metadata_parses_with_unknown_fields_and_defaults() {
        let m: AuthorizationServerMetadata = serde_json::from_str(
            r#"{"issuer":"https://a","authorization_endpoint":"https://a/auth",
                "token_endpoint":"https://a/token","extra":1,
                "code_challenge_methods_supported":["plain","S256"]}"#,
        )
        .unwrap();
        assert!(m.supports_s256());
        assert!(!m.authorization_response_iss_parameter_supported);
        assert_eq!(m.registration_endpoint, None);
        let m = AuthorizationServerMetadata {
            code_challenge_methods_supported: None,
            ..m
        };
        assert!(!m.supports_s256());
    }
}
