//! Parsing `WWW-Authenticate` (RFC 9110 § 11.6.1; spec
//! `basic/authorization` § Protected Resource Metadata Discovery
//! Requirements): one or more challenges per header value, each a scheme
//! with `name=value` parameters (token or quoted string) or a token68.
//! The parser does no I/O and never fails: what it cannot read it skips.

/// One challenge: a scheme (`Bearer`, `DPoP`, …) and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// The auth scheme as sent (compare case-insensitively).
    pub scheme: String,
    /// The parameters, names lower-cased, values unquoted.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// The value of parameter `name` (case-insensitive), if present.
    pub fn param(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.params
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// `true` when the scheme is `scheme` (case-insensitive).
    pub fn is(&self, scheme: &str) -> bool {
        self.scheme.eq_ignore_ascii_case(scheme)
    }

    /// `resource_metadata`: the Protected Resource Metadata URL (RFC 9728
    /// § 5.1).
    pub fn resource_metadata(&self) -> Option<&str> {
        self.param("resource_metadata")
    }

    /// `scope`: the scopes the server needs, space-separated (RFC 6750
    /// § 3).
    pub fn scope(&self) -> Option<&str> {
        self.param("scope")
    }

    /// `error` (RFC 6750 § 3.1), e.g. `invalid_token`, `insufficient_scope`.
    pub fn error(&self) -> Option<&str> {
        self.param("error")
    }
}

/// Every challenge in the `WWW-Authenticate` header values `values`, in
/// order.
pub fn parse_challenges<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<Challenge> {
    let mut out = Vec::new();
    for value in values {
        parse_value(value, &mut out);
    }
    out
}

/// Every challenge of the `WWW-Authenticate` fields in `headers`, in
/// order; a field that is not visible ASCII is skipped.
pub(crate) fn header_challenges(headers: &http::HeaderMap) -> Vec<Challenge> {
    parse_challenges(
        headers
            .get_all(http::header::WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok()),
    )
}

/// The Bearer or DPoP challenge among `challenges` that the client acts
/// on: the first `Bearer`, else the first `DPoP`.
pub fn oauth_challenge(challenges: &[Challenge]) -> Option<&Challenge> {
    challenges
        .iter()
        .find(|c| c.is("Bearer"))
        .or_else(|| challenges.iter().find(|c| c.is("DPoP")))
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Parses one header value, appending its challenges to `out`.
fn parse_value(value: &str, out: &mut Vec<Challenge>) {
    let chars: Vec<char> = value.chars().collect();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < chars.len() && (chars[*i] == ' ' || chars[*i] == '\t') {
            *i += 1;
        }
    };
    let read_token = |i: &mut usize| -> String {
        let start = *i;
        while *i < chars.len() && is_tchar(chars[*i]) {
            *i += 1;
        }
        chars[start..*i].iter().collect()
    };
    loop {
        // Skip separators between challenges.
        while i < chars.len() && (chars[i] == ',' || chars[i] == ' ' || chars[i] == '\t') {
            i += 1;
        }
        if i >= chars.len() {
            return;
        }
        let scheme = read_token(&mut i);
        if scheme.is_empty() {
            // Not a token: skip one character and look again.
            i += 1;
            continue;
        }
        let mut challenge = Challenge {
            scheme,
            params: Vec::new(),
        };
        skip_ws(&mut i);
        // Whether a comma was passed since the scheme: a bare token after
        // one starts the next challenge; right after the scheme it is a
        // token68.
        let mut after_comma = false;
        // Parameters (or a token68) until the next challenge starts.
        loop {
            skip_ws(&mut i);
            if i >= chars.len() {
                break;
            }
            let start = i;
            let name = read_token(&mut i);
            skip_ws(&mut i);
            if !name.is_empty() && i < chars.len() && chars[i] == '=' {
                // A parameter, unless this is a token68 ending in '='.
                let mut j = i;
                while j < chars.len() && chars[j] == '=' {
                    j += 1;
                }
                let mut k = j;
                while k < chars.len() && (chars[k] == ' ' || chars[k] == '\t') {
                    k += 1;
                }
                let token68 = j - i > 1 || k >= chars.len() || chars[k] == ',';
                if token68 && challenge.params.is_empty() && !after_comma {
                    i = j;
                    skip_ws(&mut i);
                } else {
                    i += 1;
                    skip_ws(&mut i);
                    let value = if i < chars.len() && chars[i] == '"' {
                        i += 1;
                        let mut v = String::new();
                        while i < chars.len() && chars[i] != '"' {
                            if chars[i] == '\\' && i + 1 < chars.len() {
                                i += 1;
                            }
                            v.push(chars[i]);
                            i += 1;
                        }
                        i += 1; // closing quote (or end)
                        v
                    } else {
                        read_token(&mut i)
                    };
                    challenge.params.push((name.to_ascii_lowercase(), value));
                }
                skip_ws(&mut i);
                // Anything up to the next comma is garbage after a value.
                while i < chars.len() && chars[i] != ',' {
                    i += 1;
                }
                if i < chars.len() {
                    i += 1;
                    after_comma = true;
                }
                continue;
            }
            if name.is_empty() {
                // A token68 with characters outside tchar ('/'), or junk.
                while i < chars.len() && chars[i] != ',' {
                    i += 1;
                }
                if i < chars.len() {
                    i += 1;
                    after_comma = true;
                }
                continue;
            }
            // A bare token: a token68 right after the scheme (its value is
            // of no OAuth use), or the scheme of the next challenge.
            if challenge.params.is_empty() && !after_comma {
                while i < chars.len() && chars[i] != ',' {
                    i += 1;
                }
                if i < chars.len() {
                    i += 1;
                    after_comma = true;
                }
                continue;
            }
            i = start;
            break;
        }
        out.push(challenge);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Parsed = Vec<(String, Vec<(String, String)>)>;

    fn p(v: &[&str]) -> Parsed {
        parse_challenges(v.iter().copied())
            .into_iter()
            .map(|c| (c.scheme, c.params))
            .collect()
    }

    fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn shapes_of_challenges() {
        let cases: Vec<(Vec<&str>, Parsed)> = vec![
            (vec!["Bearer"], vec![("Bearer".into(), vec![])]),
            (
                vec![
                    r#"Bearer resource_metadata="https://a/.well-known/oauth-protected-resource/mcp""#,
                ],
                vec![(
                    "Bearer".into(),
                    kv(&[(
                        "resource_metadata",
                        "https://a/.well-known/oauth-protected-resource/mcp",
                    )]),
                )],
            ),
            (
                vec![
                    r#"Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="https://a/prm""#,
                ],
                vec![(
                    "Bearer".into(),
                    kv(&[
                        ("error", "insufficient_scope"),
                        ("scope", "mcp:read mcp:write"),
                        ("resource_metadata", "https://a/prm"),
                    ]),
                )],
            ),
            (
                vec![r#"bearer Error=invalid_token , Scope = "a""#],
                vec![(
                    "bearer".into(),
                    kv(&[("error", "invalid_token"), ("scope", "a")]),
                )],
            ),
            (
                vec![r#"DPoP algs="ES256 PS256", Bearer realm="x", scope="s""#],
                vec![
                    ("DPoP".into(), kv(&[("algs", "ES256 PS256")])),
                    ("Bearer".into(), kv(&[("realm", "x"), ("scope", "s")])),
                ],
            ),
            (
                vec![r#"Basic realm="r""#, r#"Bearer scope="q\"uoted""#],
                vec![
                    ("Basic".into(), kv(&[("realm", "r")])),
                    ("Bearer".into(), kv(&[("scope", "q\"uoted")])),
                ],
            ),
            (
                vec!["Negotiate abc123==, Bearer"],
                vec![("Negotiate".into(), vec![]), ("Bearer".into(), vec![])],
            ),
            (vec!["", " , "], vec![]),
            (
                vec![r#"Bearer scope="unterminated"#],
                vec![("Bearer".into(), kv(&[("scope", "unterminated")]))],
            ),
        ];
        for (input, want) in cases {
            assert_eq!(p(&input), want, "{input:?}");
        }
    }

    #[test]
    fn bearer_is_preferred_over_dpop() {
        let c = parse_challenges([r#"DPoP scope="a""#, r#"Bearer scope="b""#]);
        assert_eq!(oauth_challenge(&c).unwrap().scope(), Some("b"));
        let c = parse_challenges([r#"DPoP scope="a""#]);
        assert_eq!(oauth_challenge(&c).unwrap().scope(), Some("a"));
        let c = parse_challenges(["Basic"]);
        assert!(oauth_challenge(&c).is_none());
    }

    #[test]
    fn never_panics_on_junk() {
        for junk in [
            "=",
            "==,",
            "\"",
            ",,=\"",
            "Bearer ,=",
            "a=b=c",
            "Bearer x y z",
            "\u{e9}\u{e9}",
        ] {
            let _ = parse_challenges([junk]);
        }
    }
}
