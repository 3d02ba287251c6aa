//! The expected-failures baseline: the YAML file the conformance suite reads with
//! `--expected-failures` (`client: [scenario, …]`), with one reason per entry.
//!
//! We read the subset of YAML we write ourselves:
//!
//! ```yaml
//! # free comments
//! client:
//!   - auth/metadata-default  # reason (required)
//! ```
//!
//! Every entry must carry a trailing `# reason` comment; the suite ignores comments, we
//! print the reason in the table.

use std::path::Path;

/// One expected failure.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// Scenario name as the suite spells it (`auth/metadata-default`).
    pub scenario: String,
    /// Why it fails today (the unbuilt feature it waits for).
    pub reason: String,
}

/// The parsed baseline file.
#[derive(Debug, Clone, Default)]
pub(super) struct Baseline {
    /// Client scenarios expected to fail, in file order.
    pub client: Vec<Entry>,
}

impl Baseline {
    /// Reads `path`; a missing file is an empty baseline.
    pub(super) fn load(path: &Path) -> Result<Self, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text).map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    /// Parses the baseline text (see the module docs for the accepted shape).
    pub(super) fn parse(text: &str) -> Result<Self, String> {
        let mut baseline = Baseline::default();
        let mut section: Option<String> = None;
        for (n, raw) in text.lines().enumerate() {
            let line_no = n + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if !raw.starts_with([' ', '\t']) {
                // `client: []`: a section with no entries (the suite wants a list).
                let line = line.strip_suffix(" []").map_or(line, |l| l.trim_end());
                let Some(key) = line.strip_suffix(':') else {
                    return Err(format!("line {line_no}: expected `client:`, got {line:?}"));
                };
                if key != "client" && key != "server" {
                    return Err(format!("line {line_no}: unknown section {key:?}"));
                }
                section = Some(key.to_string());
                continue;
            }
            let Some(item) = line.strip_prefix("- ") else {
                return Err(format!(
                    "line {line_no}: expected `- <scenario>  # <reason>`"
                ));
            };
            let (scenario, reason) = match item.split_once(" #") {
                Some((s, r)) => (s.trim(), r.trim()),
                None => (item.trim(), ""),
            };
            if scenario.is_empty() || scenario.contains(char::is_whitespace) {
                return Err(format!("line {line_no}: bad scenario name {scenario:?}"));
            }
            if reason.is_empty() {
                return Err(format!(
                    "line {line_no}: {scenario} has no reason; write `- {scenario}  # <why it fails>`"
                ));
            }
            match section.as_deref() {
                Some("client") => {
                    if baseline.client.iter().any(|e| e.scenario == scenario) {
                        return Err(format!("line {line_no}: {scenario} listed twice"));
                    }
                    baseline.client.push(Entry {
                        scenario: scenario.to_string(),
                        reason: reason.to_string(),
                    });
                }
                Some(_) => {} // server scenarios: not ours
                None => return Err(format!("line {line_no}: entry outside a section")),
            }
        }
        Ok(baseline)
    }

    /// The entry for `scenario`, if it is expected to fail.
    pub(super) fn get(&self, scenario: &str) -> Option<&Entry> {
        self.client.iter().find(|e| e.scenario == scenario)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_entries_with_reasons() {
        let b = Baseline::parse(
            "# header\nclient:\n  # group\n  - auth/a  # OAuth: not built\n  - b # later\n",
        )
        .unwrap();
        assert_eq!(b.client.len(), 2);
        assert_eq!(b.client[0].scenario, "auth/a");
        assert_eq!(b.client[0].reason, "OAuth: not built");
        assert_eq!(b.get("b").unwrap().reason, "later");
        assert!(b.get("c").is_none());
    }

    #[test]
    fn rejects_missing_reason_duplicates_and_junk() {
        assert!(Baseline::parse("client:\n  - a\n").is_err());
        assert!(Baseline::parse("client:\n  - a # x\n  - a # y\n").is_err());
        assert!(Baseline::parse("clients:\n  - a # x\n").is_err());
        assert!(Baseline::parse("  - a # x\n").is_err());
    }

    #[test]
    fn empty_file_is_empty_baseline() {
        assert!(Baseline::parse("# nothing\n").unwrap().client.is_empty());
    }

    /// The suite rejects `client:` with no entries (null); `client: []` is its empty list.
    #[test]
    fn an_empty_list_is_an_empty_baseline() {
        assert!(Baseline::parse("client: []\n").unwrap().client.is_empty());
        assert!(
            Baseline::parse("# x\nclient: []\nserver: []\n")
                .unwrap()
                .client
                .is_empty()
        );
        assert!(Baseline::parse("client: [a]\n").is_err());
    }
}
