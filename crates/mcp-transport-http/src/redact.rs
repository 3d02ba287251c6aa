//! Keeping secrets out of errors, logs and `Debug` output.

/// `url` with any `user:password@` removed.
pub(crate) fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_owned();
    };
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!(
            "{}://{}{}",
            &url[..scheme_end],
            &rest[at + 1..authority_end],
            &rest[authority_end..]
        ),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn credentials_are_removed() {
        assert_eq!(redact_url("https://u:p@h:1/x?y=@"), "https://h:1/x?y=@");
        assert_eq!(redact_url("http://h/mcp"), "http://h/mcp");
        assert_eq!(redact_url("not a url"), "not a url");
    }
}
