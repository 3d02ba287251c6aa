//! `${VAR}` and `${VAR:-default}` expansion in configuration strings.

/// Why a string could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExpandError {
    /// `${NAME}` refers to an unset variable and gives no default.
    #[error("environment variable {0} is not set (use ${{{0}:-default}} to give a default)")]
    Unset(String),
    /// The string is not well formed, e.g. `${` without `}` or `${1X}`.
    #[error("bad ${{…}} expression: {0}")]
    Syntax(String),
}

/// Expands `${VAR}` and `${VAR:-default}` in `input` with variables from
/// `lookup`, as the configuration's strings are expanded.
///
/// Rules (a small, shell-like subset; no I/O — variables come from a lookup
/// function):
/// - `${NAME}`: the value of `NAME`. `NAME` is `[A-Za-z_][A-Za-z0-9_]*`.
///   An unset variable is an error ([`ExpandError::Unset`]) naming it: a
///   server started with a silently empty token or path fails in ways that
///   are much harder to diagnose than a config error.
/// - `${NAME:-default}`: the value of `NAME`, or `default` when `NAME` is
///   unset **or empty** (as in POSIX sh). `default` may be empty and may
///   itself contain `${…}` expressions.
/// - `${env:NAME}` (and `${env:NAME:-default}`): the same as `${NAME}`, as
///   VS Code and Cursor spell it in their `mcp.json`.
/// - `$${`: a literal `${` (escape). Any other `$` is literal, so `$HOME`
///   (without braces) is left as is.
/// - An unterminated `${`, or a bad name, is [`ExpandError::Syntax`].
///
/// ```
/// use mcp_manager::expand_variables;
/// let env = |name: &str| (name == "HOME").then(|| "/home/me".to_owned());
/// assert_eq!(expand_variables("${HOME}/x", &env).unwrap(), "/home/me/x");
/// assert_eq!(expand_variables("${PORT:-8080}", &env).unwrap(), "8080");
/// assert_eq!(expand_variables("${env:HOME}", &env).unwrap(), "/home/me");
/// assert!(expand_variables("${TOKEN}", &env).is_err());
/// ```
///
/// Errors: [`ExpandError::Unset`] for `${NAME}` with `NAME` unset,
/// [`ExpandError::Syntax`] for a malformed expression.
pub fn expand_variables(
    input: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(input.len());
    let mut rest = input;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos..];
        if let Some(tail) = after.strip_prefix("$${") {
            out.push_str("${");
            rest = tail;
        } else if let Some(tail) = after.strip_prefix("${") {
            let end = matching_brace(tail).ok_or_else(|| {
                ExpandError::Syntax(format!("unterminated \"${{\" in {:?}", truncate(after)))
            })?;
            out.push_str(&expand_expression(&tail[..end], lookup)?);
            rest = &tail[end + 1..];
        } else {
            out.push('$');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// Index of the `}` closing an expression whose `${` was just consumed,
/// counting nested `${`.
fn matching_brace(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                depth += 1;
                i += 2;
                continue;
            }
            b'}' if depth == 0 => return Some(i),
            b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

fn expand_expression(
    expr: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, ExpandError> {
    let expr = expr.strip_prefix("env:").unwrap_or(expr);
    let (name, default) = match expr.find(":-") {
        Some(i) => (&expr[..i], Some(&expr[i + 2..])),
        None => (expr, None),
    };
    if !valid_name(name) {
        return Err(ExpandError::Syntax(format!(
            "{:?} is not a variable name (expected [A-Za-z_][A-Za-z0-9_]*, optionally followed by :-default)",
            truncate(expr)
        )));
    }
    match (lookup(name), default) {
        (Some(v), Some(_)) if !v.is_empty() => Ok(v),
        (Some(v), None) => Ok(v),
        (_, Some(d)) => expand_variables(d, lookup),
        (None, None) => Err(ExpandError::Unset(name.to_owned())),
    }
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// At most 40 characters of `s`, for error messages.
fn truncate(s: &str) -> String {
    let mut t: String = s.chars().take(40).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/me".into()),
            "EMPTY" => Some(String::new()),
            "TOKEN" => Some("s3cret".into()),
            "NESTED" => Some("${HOME}".into()),
            _ => None,
        }
    }

    #[test]
    fn plain_strings_are_unchanged() {
        for s in ["", "abc", "$HOME", "a$", "$", "cost: 5$ {x}", "}{"] {
            assert_eq!(expand_variables(s, &env).unwrap(), s);
        }
    }

    #[test]
    fn variables_expand() {
        assert_eq!(expand_variables("${HOME}", &env).unwrap(), "/home/me");
        assert_eq!(
            expand_variables("x${HOME}y${TOKEN}z", &env).unwrap(),
            "x/home/meys3cretz"
        );
        assert_eq!(
            expand_variables("Bearer ${TOKEN}", &env).unwrap(),
            "Bearer s3cret"
        );
        assert_eq!(expand_variables("${EMPTY}", &env).unwrap(), "");
    }

    #[test]
    fn values_are_not_expanded_again() {
        assert_eq!(expand_variables("${NESTED}", &env).unwrap(), "${HOME}");
    }

    #[test]
    fn defaults_apply_when_unset_or_empty() {
        assert_eq!(expand_variables("${NOPE:-8080}", &env).unwrap(), "8080");
        assert_eq!(expand_variables("${EMPTY:-d}", &env).unwrap(), "d");
        assert_eq!(expand_variables("${HOME:-d}", &env).unwrap(), "/home/me");
        assert_eq!(expand_variables("${NOPE:-}", &env).unwrap(), "");
        assert_eq!(expand_variables("${NOPE:-a:-b}", &env).unwrap(), "a:-b");
        assert_eq!(
            expand_variables("${NOPE:-${HOME}/x}", &env).unwrap(),
            "/home/me/x"
        );
        assert_eq!(
            expand_variables("${NOPE:-${ALSO:-deep}}!", &env).unwrap(),
            "deep!"
        );
    }

    #[test]
    fn unset_without_default_names_the_variable() {
        let err = expand_variables("a ${MISSING_VAR} b", &env).unwrap_err();
        assert_eq!(err, ExpandError::Unset("MISSING_VAR".into()));
        assert!(err.to_string().contains("MISSING_VAR"));
        let err = expand_variables("${NOPE:-${MISSING_TOO}}", &env).unwrap_err();
        assert_eq!(err, ExpandError::Unset("MISSING_TOO".into()));
    }

    #[test]
    fn escape_gives_literal() {
        assert_eq!(expand_variables("$${HOME}", &env).unwrap(), "${HOME}");
        assert_eq!(expand_variables("$$", &env).unwrap(), "$$");
    }

    #[test]
    fn syntax_errors() {
        for s in [
            "${",
            "${HOME",
            "${}",
            "${1X}",
            "${A B}",
            "${A-b}",
            "${:-x}",
            "x ${NOPE:-${HOME}",
        ] {
            assert!(
                matches!(expand_variables(s, &env), Err(ExpandError::Syntax(_))),
                "{s:?} -> {:?}",
                expand_variables(s, &env)
            );
        }
    }

    #[test]
    fn unicode_around_expressions() {
        assert_eq!(expand_variables("é${HOME}ü$", &env).unwrap(), "é/home/meü$");
    }
}
