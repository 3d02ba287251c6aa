//! Fuzz check of the OAuth discovery documents (`src/metadata.rs`,
//! included by path): Protected Resource Metadata (RFC 9728 § 2) and
//! authorization server metadata (RFC 8414 § 2) read from a body, against
//! a model over serde_json's reading, and the URLs derived from a server
//! or issuer URL.
//!
//! Input: byte 0 picks what the rest is: 0 a PRM body, 1 an authorization
//! server metadata body, 2 a server URL, 3 an issuer.
//!
//! Checks: no panic; a body is read (`read_json`, as the crate reads every
//! body a peer sends) exactly when it is UTF-8 throughout, a JSON object whose
//! required members are strings and whose optional members have their
//! type or are `null` (booleans: absent or a boolean), with no member
//! given twice, and then the fields are those members; the well-known
//! URLs of an http(s) server or issuer (the only ones that reach them: the
//! transport's URL, an issuer past `check_url`) are absolute URLs on its
//! origin, path-based before the root one; a server's canonical URI
//! identifies it as a resource (`resource_matches`).

use serde_json::{Map, Value};

#[allow(
    dead_code,
    unreachable_pub,
    reason = "the file is included by path: the unit tests of the file use the rest, and its public items are the crate's API there"
)]
#[path = "../../src/metadata.rs"]
mod metadata;

use metadata::{
    AuthorizationServerMetadata, ProtectedResourceMetadata, as_metadata_urls, canonical_server_uri,
    origin, prm_urls, read_json, resource_matches,
};

/// `Some(members)` when `body` is a JSON object with no member named
/// twice among `known`; `None` when the reading must fail.
fn object(body: &[u8], known: &[&str]) -> Option<Map<String, Value>> {
    // serde_json's `Value` keeps the last of a duplicated name; the
    // derived reader refuses a duplicated field, so count them apart.
    struct Entries(Vec<(String, Value)>);
    impl<'de> serde::Deserialize<'de> for Entries {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Entries;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Entries, A::Error> {
                    let mut out = Vec::new();
                    while let Some(entry) = map.next_entry::<String, Value>()? {
                        out.push(entry);
                    }
                    Ok(Entries(out))
                }
            }
            d.deserialize_map(V)
        }
    }
    let Entries(entries) = serde_json::from_slice::<Entries>(body).ok()?;
    let mut map = Map::new();
    for (name, value) in entries {
        if map.insert(name.clone(), value).is_some() && known.contains(&name.as_str()) {
            return None;
        }
    }
    Some(map)
}

fn string(map: &Map<String, Value>, name: &str) -> Option<Option<String>> {
    match map.get(name) {
        None => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(_) => None,
    }
}

fn strings(map: &Map<String, Value>, name: &str) -> Option<Option<Vec<String>>> {
    match map.get(name) {
        None | Some(Value::Null) => Some(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(Some),
        Some(_) => None,
    }
}

fn flag(map: &Map<String, Value>, name: &str) -> Option<bool> {
    match map.get(name) {
        None => Some(false),
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => None,
    }
}

fn prm_model(body: &[u8]) -> Option<ProtectedResourceMetadata> {
    let map = object(
        body,
        &["resource", "authorization_servers", "scopes_supported"],
    )?;
    let resource = string(&map, "resource")??;
    // `#[serde(default)] Vec<String>`: absent is empty, `null` is refused.
    let authorization_servers = match map.get("authorization_servers") {
        None => Vec::new(),
        Some(Value::Array(_)) => strings(&map, "authorization_servers")??,
        Some(_) => return None,
    };
    let scopes_supported = strings(&map, "scopes_supported")?;
    Some(ProtectedResourceMetadata {
        resource,
        authorization_servers,
        scopes_supported,
    })
}

fn as_model(body: &[u8]) -> Option<AuthorizationServerMetadata> {
    const FIELDS: [&str; 13] = [
        "issuer",
        "authorization_endpoint",
        "token_endpoint",
        "registration_endpoint",
        "scopes_supported",
        "code_challenge_methods_supported",
        "token_endpoint_auth_methods_supported",
        "token_endpoint_auth_signing_alg_values_supported",
        "grant_types_supported",
        "client_id_metadata_document_supported",
        "authorization_response_iss_parameter_supported",
        "revocation_endpoint",
        "device_authorization_endpoint",
    ];
    let map = object(body, &FIELDS)?;
    // `Option<String>`: absent and `null` are `None`.
    let optional = |name: &str| match map.get(name) {
        Some(Value::Null) => Some(None),
        _ => string(&map, name),
    };
    let registration_endpoint = optional("registration_endpoint")?;
    let revocation_endpoint = optional("revocation_endpoint")?;
    let device_authorization_endpoint = optional("device_authorization_endpoint")?;
    Some(AuthorizationServerMetadata {
        issuer: string(&map, "issuer")??,
        authorization_endpoint: string(&map, "authorization_endpoint")??,
        token_endpoint: string(&map, "token_endpoint")??,
        registration_endpoint,
        scopes_supported: strings(&map, "scopes_supported")?,
        code_challenge_methods_supported: strings(&map, "code_challenge_methods_supported")?,
        token_endpoint_auth_methods_supported: strings(
            &map,
            "token_endpoint_auth_methods_supported",
        )?,
        token_endpoint_auth_signing_alg_values_supported: strings(
            &map,
            "token_endpoint_auth_signing_alg_values_supported",
        )?,
        grant_types_supported: strings(&map, "grant_types_supported")?,
        client_id_metadata_document_supported: flag(&map, "client_id_metadata_document_supported")?,
        authorization_response_iss_parameter_supported: flag(
            &map,
            "authorization_response_iss_parameter_supported",
        )?,
        revocation_endpoint,
        device_authorization_endpoint,
        dpop_signing_alg_values_supported: strings(&map, "dpop_signing_alg_values_supported")?,
    })
}

fn on_origin(urls: &[String], origin: &str) {
    for u in urls {
        let parsed = url::Url::parse(u).unwrap_or_else(|e| panic!("{u:?}: {e}"));
        assert_eq!(parsed.origin().ascii_serialization(), origin, "{u}");
        assert!(u.contains("/.well-known/"), "{u}");
    }
}

/// Runs the check on one fuzz input (see the module docs).
pub(crate) fn check(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    match pick % 4 {
        0 => {
            let got = read_json::<ProtectedResourceMetadata>(rest).ok();
            assert_eq!(got, prm_model(rest), "protected resource metadata");
        }
        1 => {
            let got = read_json::<AuthorizationServerMetadata>(rest).ok();
            assert_eq!(got, as_model(rest), "authorization server metadata");
        }
        2 => {
            // The server URL is the HTTP transport's: http or https.
            let Ok(server) = url::Url::parse(&String::from_utf8_lossy(rest)) else {
                return;
            };
            if !server.has_host() || !matches!(server.scheme(), "http" | "https") {
                return;
            }
            let urls = prm_urls(&server);
            on_origin(&urls, &origin(&server));
            assert!(
                urls.last()
                    .is_some_and(|u| u.ends_with("/oauth-protected-resource"))
            );
            let canonical = canonical_server_uri(&server);
            assert!(
                resource_matches(&canonical, &server),
                "{canonical:?} does not identify {server}"
            );
        }
        _ => {
            // Discovery checks an issuer (https, or http on a loopback
            // host) before it looks for its metadata.
            let issuer = String::from_utf8_lossy(rest);
            if !(issuer.starts_with("https://") || issuer.starts_with("http://")) {
                return;
            }
            let Some(urls) = as_metadata_urls(&issuer) else {
                return;
            };
            let parsed = url::Url::parse(&issuer).expect("an issuer with URLs parses");
            on_origin(&urls, &origin(&parsed));
            assert!(urls.len() == 2 || urls.len() == 3, "{urls:?}");
        }
    }
}
