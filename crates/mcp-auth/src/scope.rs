//! Which scopes to ask for (spec `basic/authorization` § Scope Selection
//! Strategy, § Step-Up Authorization Flow, § Refresh Tokens): the
//! challenge's `scope`, else everything the resource lists, else none;
//! on step-up the union of what was asked before and what the challenge
//! asks; `offline_access` only when the authorization server lists it.

/// Space-separated `scope` to words, in order, without duplicates.
pub(crate) fn split(scope: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in scope.split_ascii_whitespace() {
        if !out.iter().any(|o| o == s) {
            out.push(s.to_owned());
        }
    }
    out
}

/// The scopes of a first authorization.
pub(crate) fn initial(challenge: Option<&str>, prm_scopes: Option<&[String]>) -> Vec<String> {
    match challenge.map(split) {
        Some(s) if !s.is_empty() => s,
        _ => prm_scopes.map(<[String]>::to_vec).unwrap_or_default(),
    }
}

/// `before` followed by the scopes of `more` it lacks.
pub(crate) fn union(before: &[String], more: &[String]) -> Vec<String> {
    let mut out = before.to_vec();
    for s in more {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}

/// `scopes` plus `offline_access` when `wanted` and the authorization
/// server lists it.
pub(crate) fn with_offline_access(
    mut scopes: Vec<String>,
    as_scopes: Option<&[String]>,
    wanted: bool,
) -> Vec<String> {
    let offered = as_scopes.is_some_and(|s| s.iter().any(|s| s == "offline_access"));
    if wanted && offered && !scopes.iter().any(|s| s == "offline_access") {
        scopes.push("offline_access".into());
    }
    scopes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn selection_order() {
        let prm = v(&["mcp:basic", "mcp:read"]);
        assert_eq!(initial(Some("a  b a"), Some(&prm)), v(&["a", "b"]));
        assert_eq!(initial(Some(" "), Some(&prm)), prm);
        assert_eq!(initial(None, Some(&prm)), prm);
        assert_eq!(initial(None, None), Vec::<String>::new());
    }

    #[test]
    fn step_up_is_the_union() {
        assert_eq!(
            union(&v(&["mcp:basic"]), &v(&["mcp:write", "mcp:basic"])),
            v(&["mcp:basic", "mcp:write"])
        );
    }

    #[test]
    fn offline_access_only_when_offered() {
        let offered = v(&["openid", "offline_access"]);
        let not = v(&["openid"]);
        assert_eq!(
            with_offline_access(v(&["a"]), Some(&offered), true),
            v(&["a", "offline_access"])
        );
        assert_eq!(with_offline_access(v(&["a"]), Some(&not), true), v(&["a"]));
        assert_eq!(with_offline_access(v(&["a"]), None, true), v(&["a"]));
        assert_eq!(
            with_offline_access(v(&["a"]), Some(&offered), false),
            v(&["a"])
        );
        assert_eq!(
            with_offline_access(v(&["offline_access"]), Some(&offered), true),
            v(&["offline_access"])
        );
    }
}
