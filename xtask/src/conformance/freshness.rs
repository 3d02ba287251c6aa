//! Whether the committed docs/conformance.md says what a run found.
//!
//! A test run must leave the tree as it found it, so `cargo xtask conformance` (and
//! `cargo xtask test`) only compares; `--write` regenerates the file. The comparison is
//! by part (the preamble with the suites' notes, each `## ` section, the grand total,
//! the verdict), and only of the parts the run produced: a run without the fault
//! catalogue (no `../shared`) says nothing about the catalogue sections, so it neither
//! fails on them nor drops them. Whitespace at line ends, blank lines and CRLF line
//! endings are not substance.

/// Which kinds of section a run produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ran {
    /// The official suites (and with them the preamble's notes).
    pub suites: bool,
    /// The fault catalogue.
    pub catalogue: bool,
}

impl Ran {
    fn covers(self, kind: Kind) -> bool {
        match kind {
            Kind::Suites => self.suites,
            Kind::Catalogue => self.catalogue,
            // The grand total and the verdict sum up every section.
            Kind::Whole => self.suites && self.catalogue,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Suites,
    Catalogue,
    Whole,
}

/// A part of the document: its name (`preamble`, a section heading, `grand total`) and
/// its normalised lines.
#[derive(Debug)]
struct Part {
    name: String,
    kind: Kind,
    lines: Vec<String>,
}

const GRAND_TOTAL: &str = "**Grand total:**";

fn kind_of(heading: &str) -> Kind {
    if heading.starts_with("Official suite ") {
        Kind::Suites
    } else if heading.starts_with("Fault catalogue ") {
        Kind::Catalogue
    } else {
        Kind::Whole
    }
}

fn parts(doc: &str) -> Vec<Part> {
    let mut out = vec![Part {
        name: "preamble".into(),
        kind: Kind::Suites,
        lines: Vec::new(),
    }];
    let mut total = Part {
        name: "grand total".into(),
        kind: Kind::Whole,
        lines: Vec::new(),
    };
    for line in doc.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            continue;
        }
        if let Some(heading) = line.strip_prefix("## ") {
            out.push(Part {
                name: heading.to_string(),
                kind: kind_of(heading),
                lines: vec![line.to_string()],
            });
        } else if line.starts_with(GRAND_TOTAL) {
            total.lines.push(line.to_string());
        } else if let Some(last) = out.last_mut() {
            last.lines.push(line.to_string());
        }
    }
    out.push(total);
    out
}

/// The differences in substance between the committed document and the one this run
/// generated, limited to what the run produced; empty when the committed one is current.
/// Each names the part (and its first differing line).
pub(super) fn differences(committed: &str, generated: &str, ran: Ran) -> Vec<String> {
    let old = parts(committed);
    let new = parts(generated);
    let mut out = Vec::new();
    for part in new.iter().filter(|p| ran.covers(p.kind)) {
        match old.iter().find(|o| o.name == part.name) {
            None => out.push(format!("`{}` is new", part.name)),
            Some(o) if o.lines != part.lines => out.push(first_difference(&part.name, o, part)),
            Some(_) => {}
        }
    }
    for part in old.iter().filter(|p| ran.covers(p.kind)) {
        if !new.iter().any(|n| n.name == part.name) {
            out.push(format!("`{}` is no longer produced", part.name));
        }
    }
    out
}

fn first_difference(name: &str, old: &Part, new: &Part) -> String {
    let n = old
        .lines
        .iter()
        .zip(&new.lines)
        .take_while(|(a, b)| a == b)
        .count();
    let show = |p: &Part| {
        p.lines
            .get(n)
            .map(|l| format!("{l:?}"))
            .unwrap_or_else(|| "(nothing)".into())
    };
    format!(
        "`{name}` differs: committed {} / now {}",
        show(old),
        show(new)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = "# Conformance\n\nintro\n\n- `stable` suite exit 0.\n\n\
        ## Official suite `x` 1.0 — `client --suite all`\n\n| a | PASS |\n| **Total** 1 |\n\n\
        ## Fault catalogue (`../shared/cases/catalogue.md`, 2 cases) — tests\n\n| B01 | 3 | PASS |\n| B07 | 3 | PASS |\n\n\
        **Grand total:** 3 rows, 3 pass\n\n## Verdict\n\nOK: nothing failing.\n";

    const BOTH: Ran = Ran {
        suites: true,
        catalogue: true,
    };
    const NO_CATALOGUE: Ran = Ran {
        suites: true,
        catalogue: false,
    };
    const NO_SUITES: Ran = Ran {
        suites: false,
        catalogue: true,
    };

    /// The suite part of FULL as a run without the catalogue renders it.
    fn suites_only(doc: &str) -> String {
        let cut = doc.find("## Fault catalogue").unwrap();
        format!(
            "{}**Grand total:** 1 rows, 1 pass\n\n## Verdict\n\nOK\n",
            &doc[..cut]
        )
    }

    #[test]
    fn the_same_document_is_current_whatever_ran() {
        for ran in [BOTH, NO_CATALOGUE, NO_SUITES] {
            assert_eq!(
                differences(FULL, FULL, ran),
                Vec::<String>::new(),
                "{ran:?}"
            );
        }
    }

    #[test]
    fn layout_is_not_substance() {
        let crlf = FULL.replace('\n', "\r\n");
        let spaced = FULL
            .replace("\n\n", "\n\n\n")
            .replace("PASS |\n", "PASS |   \n");
        let unspaced = FULL.replace("\n\n", "\n");
        for other in [crlf, spaced, unspaced] {
            assert!(differences(&other, FULL, BOTH).is_empty(), "{other:?}");
        }
    }

    #[test]
    fn a_changed_count_is_stale_and_named() {
        let now = FULL.replace("| B07 | 3 |", "| B07 | 4 |");
        for ran in [BOTH, NO_SUITES] {
            let d = differences(FULL, &now, ran);
            assert_eq!(d.len(), 1, "{d:?}");
            assert!(d[0].contains("Fault catalogue"), "{d:?}");
            assert!(
                d[0].contains("| B07 | 3 |") && d[0].contains("| B07 | 4 |"),
                "{d:?}"
            );
        }
    }

    #[test]
    fn every_kind_of_part_is_compared_when_it_ran() {
        let changes = [
            ("intro", "intro, reworded", "preamble"),
            ("suite exit 0", "suite exit non-zero", "preamble"),
            ("| a | PASS |", "| a | FAIL |", "Official suite"),
            ("3 rows, 3 pass", "3 rows, 2 pass", "grand total"),
            ("OK: nothing failing.", "FAILED: x", "Verdict"),
        ];
        for (from, to, part) in changes {
            let now = FULL.replace(from, to);
            assert_ne!(now, FULL);
            let d = differences(FULL, &now, BOTH);
            assert_eq!(d.len(), 1, "{from}: {d:?}");
            assert!(d[0].contains(part), "{from}: {d:?}");
        }
    }

    #[test]
    fn a_run_without_the_catalogue_ignores_the_committed_catalogue() {
        // The catalogue sections, grand total and verdict are the full run's; a run
        // without ../shared can neither confirm nor refute them.
        let now = suites_only(FULL);
        assert!(differences(FULL, &now, NO_CATALOGUE).is_empty());
        // ... but still checks the suites.
        let worse = suites_only(&FULL.replace("| a | PASS |", "| a | FAIL |"));
        let d = differences(FULL, &worse, NO_CATALOGUE);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].contains("Official suite"), "{d:?}");
    }

    #[test]
    fn added_and_removed_sections_are_stale() {
        let extra = FULL.replace(
            "**Grand total:**",
            "## Fault catalogue (`../shared/cases/catalogue-2.md`, 1 cases) — tests\n\n| B31 | 1 | PASS |\n\n**Grand total:**",
        );
        let d = differences(FULL, &extra, NO_SUITES);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(
            d[0].contains("catalogue-2.md") && d[0].contains("is new"),
            "{d:?}"
        );
        let d = differences(&extra, FULL, NO_SUITES);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].contains("no longer produced"), "{d:?}");
    }
}
