//! `NO_PROXY` / `no_proxy`: the destinations that are connected to
//! directly although a proxy variable is set, in every form curl and Go's
//! `net/http` accept, so that a list written for either works here:
//!
//! - entries separated by commas, white space around them ignored, case
//!   ignored; an empty entry is skipped;
//! - `*` alone: every destination;
//! - a domain (`example.com`) matches itself and every subdomain; a
//!   leading `.` (`.example.com`) or `*.` (`*.example.com`, Go) matches the
//!   same (curl: the leading dot is ignored); one trailing `.` on either
//!   side is ignored; an internationalized name is compared in its ASCII
//!   (IDNA) form;
//! - an IP address (`10.1.2.3`, `::1`, `[::1]`) matches that address; a
//!   CIDR range (`10.0.0.0/8`, `fd00::/8`) every address in it; a host name
//!   is never resolved to match one (curl and Go do not either);
//! - a port (`example.com:8080`, `10.1.2.3:8080`, `[::1]:8080`) narrows an
//!   entry to that port; a destination without an explicit port has its
//!   scheme's (80, 443).
//!
//! hyper-util's matcher (which reads the proxy variables themselves) knows
//! all but the port, `*.` and bracket forms; an entry it does not know
//! silently never matches, so the list is read here instead.

use std::net::IpAddr;

use http::Uri;
use ipnet::IpNet;

/// A parsed `NO_PROXY` list (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct NoProxy {
    /// `*` was listed.
    all: bool,
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// A domain, lower-case ASCII, without a leading or trailing dot.
    Domain { name: String, port: Option<u16> },
    /// One address.
    Address { ip: IpAddr, port: Option<u16> },
    /// A CIDR range.
    Range(IpNet),
}

impl NoProxy {
    /// Parses `list`. An entry that fits no form (`a:b:c`, a bad port) is
    /// skipped with a debug line; the others still apply.
    pub(crate) fn parse(list: &str) -> NoProxy {
        let mut out = NoProxy::default();
        for raw in list.split(',') {
            let entry = raw.trim().to_ascii_lowercase();
            if entry.is_empty() {
                continue;
            }
            if entry == "*" {
                out.all = true;
                continue;
            }
            match parse_entry(&entry) {
                Some(e) => out.entries.push(e),
                None => tracing::debug!(entry = %entry, "NO_PROXY entry not understood; ignored"),
            }
        }
        out
    }

    /// `true` when a request to `dst` must not go through a proxy.
    pub(crate) fn matches(&self, dst: &Uri) -> bool {
        if self.all {
            return true;
        }
        if self.entries.is_empty() {
            return false;
        }
        let Some(host) = dst.host() else {
            return false;
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = dst.port_u16().or(match dst.scheme_str() {
            Some("https") => Some(443),
            Some("http") => Some(80),
            _ => None,
        });
        let ip = host.parse::<IpAddr>().ok();
        let name = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
        let port_ok = |want: &Option<u16>| want.is_none() || *want == port;
        self.entries.iter().any(|entry| match entry {
            Entry::Range(net) => ip.is_some_and(|ip| net.contains(&ip)),
            Entry::Address { ip: want, port: p } => ip == Some(*want) && port_ok(p),
            Entry::Domain {
                name: want,
                port: p,
            } => {
                ip.is_none()
                    && port_ok(p)
                    && (name == *want
                        || name
                            .strip_suffix(want.as_str())
                            .is_some_and(|head| head.ends_with('.')))
            }
        })
    }
}

/// One entry (trimmed, lower-case, not `*`), or `None` when it fits no
/// form.
fn parse_entry(entry: &str) -> Option<Entry> {
    if let Ok(net) = entry.parse::<IpNet>() {
        return Some(Entry::Range(net));
    }
    if let Ok(ip) = entry.parse::<IpAddr>() {
        return Some(Entry::Address { ip, port: None });
    }
    // `[v6]` or `[v6]:port`.
    if let Some(rest) = entry.strip_prefix('[') {
        let (addr, after) = rest.split_once(']')?;
        let ip = addr.parse::<IpAddr>().ok()?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?.parse::<u16>().ok()?),
        };
        return Some(Entry::Address { ip, port });
    }
    // `host:port` (a bare IPv6 address was taken above).
    let (host, port) = match entry.rsplit_once(':') {
        Some((host, port)) => (host, Some(port.parse::<u16>().ok()?)),
        None => (entry, None),
    };
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Some(Entry::Address { ip, port });
    }
    let name = host.strip_prefix("*.").unwrap_or(host);
    let name = name.strip_prefix('.').unwrap_or(name);
    let name = name.strip_suffix('.').unwrap_or(name);
    if name.is_empty() || name.contains(['*', ':', '/', '[', ']']) {
        return None;
    }
    // The ASCII (IDNA) form a URL's host is in; a name `url` refuses is
    // compared as it is.
    let name = match ::url::Host::parse(name) {
        Ok(::url::Host::Domain(ascii)) => ascii,
        _ => name.to_owned(),
    };
    Some(Entry::Domain { name, port })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bypasses(list: &str, url: &str) -> bool {
        NoProxy::parse(list).matches(&url.parse().unwrap())
    }

    /// One row per form: the list, a destination, and whether it goes
    /// direct.
    #[test]
    fn every_form_curl_and_go_accept() {
        let cases: &[(&str, &str, bool)] = &[
            // `*`, alone or in a list.
            ("*", "https://any.where/mcp", true),
            ("a.example, *", "http://10.1.2.3/", true),
            // A bare domain: itself and its subdomains, not a longer name.
            ("example.com", "https://example.com/", true),
            ("example.com", "https://api.example.com/", true),
            ("example.com", "https://a.b.example.com/", true),
            ("example.com", "https://notexample.com/", false),
            ("example.com", "https://example.com.evil.net/", false),
            // A leading dot or `*.`: the same.
            (".example.com", "https://api.example.com/", true),
            (".example.com", "https://example.com/", true),
            ("*.example.com", "https://api.example.com/", true),
            ("*.example.com", "https://notexample.com/", false),
            // Case, white space, empty entries, trailing dots.
            ("  EXAMPLE.com ,other.net", "https://Api.Example.COM/", true),
            ("a.net,  , other.net\t", "https://x.other.net/", true),
            ("example.com.", "https://example.com/", true),
            ("example.com", "https://example.com./", true),
            // A port narrows the entry; the scheme's port counts.
            ("example.com:8080", "http://example.com:8080/", true),
            ("example.com:8080", "http://example.com/", false),
            ("example.com:8080", "https://api.example.com:8080/", true),
            ("example.com:443", "https://example.com/", true),
            ("example.com:443", "http://example.com/", false),
            (".example.com:80", "http://api.example.com/", true),
            // IP addresses, with or without a port.
            ("10.1.2.3", "http://10.1.2.3:9000/", true),
            ("10.1.2.3", "http://10.1.2.4/", false),
            ("10.1.2.3:9000", "http://10.1.2.3:9000/", true),
            ("10.1.2.3:9000", "http://10.1.2.3:9001/", false),
            ("::1", "http://[::1]:8080/", true),
            ("[::1]", "http://[::1]:8080/", true),
            ("[::1]:8080", "http://[::1]:8080/", true),
            ("[::1]:8080", "http://[::1]:8081/", false),
            ("fe80::1", "http://[fe80::2]/", false),
            // CIDR ranges, v4 and v6; a name is never resolved to match.
            ("10.0.0.0/8", "http://10.200.3.4/", true),
            ("10.0.0.0/8", "http://11.0.0.1/", false),
            ("192.168.1.0/24", "https://192.168.1.42/", true),
            ("fd00::/8", "http://[fd12:3456::1]/", true),
            ("fd00::/8", "http://[fe80::1]/", false),
            ("127.0.0.0/8", "http://localhost/", false),
            // A domain entry never matches an address, nor the reverse.
            ("10.1.2.3", "http://host10.1.2.3.example/", false),
            // Internationalized names, in their ASCII form.
            ("bücher.example", "https://xn--bcher-kva.example/", true),
            // Nothing listed, or nothing understood.
            ("", "https://example.com/", false),
            ("a:b:c, example.com:http, *foo", "https://a/", false),
        ];
        for (list, url, want) in cases {
            assert_eq!(bypasses(list, url), *want, "NO_PROXY={list:?} {url}");
        }
    }

    #[test]
    fn entries_that_fit_no_form_are_skipped_and_the_rest_apply() {
        let parsed = NoProxy::parse("a:b:c, [::1, x.org:99999, /8, ok.example");
        assert_eq!(parsed.entries.len(), 1, "{parsed:?}");
        assert!(parsed.matches(&"https://ok.example/".parse().unwrap()));
    }
}
