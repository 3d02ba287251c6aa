//! Fuzz check of the `WWW-Authenticate` parser (`src/challenge.rs`,
//! included by path; RFC 9110 § 11.6.1), with a generator and serializer
//! of well-formed challenges as the reference model.
//!
//! Input: byte 0 even: the rest is header text, split into header values
//! at `\n`. Byte 0 odd: the rest chooses well-formed challenges (schemes,
//! parameters with any values, tokens or quoted strings, token68 forms,
//! spacing, case, how they are spread over header values), which are then
//! written out.
//!
//! Checks: no panic; on any text, every scheme is a non-empty token and
//! every parameter name a non-empty lower-case token, and writing the
//! parsed challenges out canonically and parsing them again gives the same
//! challenges; on well-formed challenges, the parser reads exactly what
//! was written (names lower-cased, a token68 dropped).

use super::input::Choices;

#[allow(
    dead_code,
    unreachable_pub,
    reason = "the file is included by path: the unit tests of the file use the rest, and its public items are the crate's API there"
)]
#[path = "../../src/challenge.rs"]
mod challenge;

use challenge::{Challenge, parse_challenges};

fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// The challenges written as one header value, every value quoted.
fn canonical(challenges: &[Challenge]) -> String {
    challenges
        .iter()
        .map(|c| {
            let params: Vec<String> = c
                .params
                .iter()
                .map(|(n, v)| format!("{n}={}", quoted(v)))
                .collect();
            if params.is_empty() {
                c.scheme.clone()
            } else {
                format!("{} {}", c.scheme, params.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

const SCHEMES: [&str; 6] = [
    "Bearer",
    "DPoP",
    "Basic",
    "Digest",
    "Negotiate",
    "x-Custom.1",
];
const NAMES: [&str; 7] = [
    "realm",
    "scope",
    "error",
    "error_description",
    "resource_metadata",
    "Max-Age",
    "a",
];
const SEPARATORS: [&str; 4] = [", ", ",", " , ", ",\t"];

/// Well-formed challenges chosen by `c`, and their text as header values.
fn generate(c: &mut Choices<'_>) -> (Vec<Challenge>, Vec<String>) {
    let mut challenges = Vec::new();
    let mut values = vec![String::new()];
    let count = 1 + c.below(4);
    for _ in 0..count {
        if c.is_empty() && !challenges.is_empty() {
            break;
        }
        let scheme = SCHEMES[c.below(SCHEMES.len())].to_owned();
        let mut text = scheme.clone();
        let mut params = Vec::new();
        match c.below(4) {
            // A token68 (its value is dropped).
            0 => {
                let t68 = ["abc==", "Zm9vOmJhcg==", "a.b-c~d+e/f="][c.below(3)];
                text.push(' ');
                text.push_str(t68);
            }
            _ => {
                let n = c.below(4);
                for i in 0..n {
                    let name = NAMES[c.below(NAMES.len())];
                    let value = c.text(24);
                    let written = if is_token(&value) && c.byte().is_multiple_of(2) {
                        value.clone()
                    } else {
                        quoted(&value)
                    };
                    let sep = if i == 0 {
                        " ".to_owned()
                    } else {
                        SEPARATORS[c.below(SEPARATORS.len())].to_owned()
                    };
                    let eq = ["=", " = ", "= "][c.below(3)];
                    text.push_str(&format!("{sep}{name}{eq}{written}"));
                    params.push((name.to_ascii_lowercase(), value));
                }
            }
        }
        challenges.push(Challenge { scheme, params });
        let last = values.last_mut().expect("one value at least");
        if last.is_empty() {
            last.push_str(&text);
        } else if c.byte().is_multiple_of(3) {
            values.push(text);
        } else {
            last.push_str(SEPARATORS[c.below(SEPARATORS.len())]);
            last.push_str(&text);
        }
    }
    (challenges, values)
}

/// Runs the check on one fuzz input (see the module docs).
pub(crate) fn check(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode.is_multiple_of(2) {
        let text = String::from_utf8_lossy(rest);
        let parsed = parse_challenges(text.split('\n'));
        for c in &parsed {
            assert!(is_token(&c.scheme), "scheme {:?}", c.scheme);
            for (name, _) in &c.params {
                assert!(is_token(name), "parameter name {name:?}");
                assert_eq!(name, &name.to_ascii_lowercase());
            }
        }
        let again = parse_challenges([canonical(&parsed).as_str()]);
        assert_eq!(again, parsed, "parsed again from {:?}", canonical(&parsed));
    } else {
        let (want, values) = generate(&mut Choices::new(rest));
        let got = parse_challenges(values.iter().map(String::as_str));
        assert_eq!(got, want, "from {values:?}");
    }
}
