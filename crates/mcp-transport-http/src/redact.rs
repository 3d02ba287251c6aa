//! Keeping secrets out of errors, logs and `Debug` output.

/// `url` as it may be shown: any `user:password@` removed, and the value of
/// each query parameter replaced by `***` (servers take API keys and tokens
/// in the query: `?token=…`, `?api_key=…`; the names stay, for debugging).
pub(crate) fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_owned();
    };
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let host = match rest[..authority_end].rfind('@') {
        Some(at) => &rest[at + 1..authority_end],
        None => &rest[..authority_end],
    };
    let tail = &rest[authority_end..];
    let (before_fragment, fragment) = match tail.find('#') {
        Some(i) => tail.split_at(i),
        None => (tail, ""),
    };
    let (path, query) = match before_fragment.find('?') {
        Some(i) => (&before_fragment[..i], Some(&before_fragment[i + 1..])),
        None => (before_fragment, None),
    };
    let mut out = format!("{}://{host}{path}", &url[..scheme_end]);
    if let Some(query) = query {
        out.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) if !value.is_empty() => format!("{name}=***"),
                _ => pair.to_owned(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    out.push_str(fragment);
    out
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn credentials_are_removed() {
        assert_eq!(redact_url("https://u:p@h:1/x?y=@"), "https://h:1/x?y=***");
        assert_eq!(redact_url("http://h/mcp"), "http://h/mcp");
        assert_eq!(redact_url("not a url"), "not a url");
    }

    #[test]
    fn query_values_are_hidden_and_names_kept() {
        assert_eq!(
            redact_url("http://127.0.0.1:1/mcp?token=QSECRET&mode=x&flag#frag"),
            "http://127.0.0.1:1/mcp?token=***&mode=***&flag#frag"
        );
        assert_eq!(
            redact_url("https://h/messages?sessionId=abc"),
            "https://h/messages?sessionId=***"
        );
        assert_eq!(redact_url("https://h/p?"), "https://h/p?");
        assert_eq!(redact_url("https://h?k=v"), "https://h?k=***");
    }
}
