//! The table `cargo xtask conformance` prints and writes to docs/conformance.md.

use std::fmt::Write as _;

/// A scenario's (or catalogue case's) verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Outcome {
    /// All checks passed, none failed or warned.
    Pass,
    /// Failed and not in the baseline (fails the run); the first problem.
    Fail(String),
    /// Failed and listed in the baseline with this reason.
    ExpectedFail(String),
    /// Passed although the baseline lists it (fails the run: shrink the baseline).
    Stale,
    /// A catalogue case without any test (fails the run).
    Missing,
    /// The suite marked every check SKIPPED (not exercised); not a failure by the suite's
    /// rules, not a pass either. The first skip message.
    Skipped(String),
    /// The checks passed, but only because the client stopped (with an error the
    /// scenario allows) before attempting what they check; not a failure by the suite's
    /// rules, not a pass either. Why.
    Vacuous(String),
}

impl Outcome {
    /// The short word for the result column.
    pub(super) fn word(&self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Fail(_) => "FAIL",
            Outcome::ExpectedFail(_) => "expected fail",
            Outcome::Stale => "STALE (passes; remove from baseline)",
            Outcome::Missing => "MISSING",
            Outcome::Skipped(_) => "skipped (not exercised)",
            Outcome::Vacuous(_) => "passed vacuously (nothing attempted)",
        }
    }

    fn note(&self) -> &str {
        match self {
            Outcome::Fail(n)
            | Outcome::ExpectedFail(n)
            | Outcome::Skipped(n)
            | Outcome::Vacuous(n) => n,
            _ => "",
        }
    }
}

/// One table row.
#[derive(Debug, Clone)]
pub(super) struct Row {
    /// Scenario or case.
    pub name: String,
    /// Checks (or tests) passed.
    pub passed: usize,
    /// Checks (or tests) failed.
    pub failed: usize,
    /// Checks warned (catalogue: tests ignored); count as failures.
    pub warned: usize,
    /// How the client under test exited (`0`, `1 (allowed)`, `SIGTERM`, `not recorded`);
    /// empty where no client runs (the catalogue's tests).
    pub client_exit: String,
    /// Verdict.
    pub outcome: Outcome,
}

/// A titled group of rows.
#[derive(Debug, Clone)]
pub(super) struct Section {
    /// Heading, e.g. `@modelcontextprotocol/conformance 0.1.16 (--suite all)`.
    pub title: String,
    /// Rows.
    pub rows: Vec<Row>,
}

fn escape(s: &str) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = one_line.replace('|', "\\|");
    if out.chars().count() > 160 {
        out = out.chars().take(157).collect::<String>() + "...";
    }
    out
}

/// Renders sections as Markdown tables, each with a total line.
pub(super) fn render(sections: &[Section]) -> String {
    let mut s = String::new();
    let (mut gp, mut gf, mut gw, mut gpass, mut gn) = (0, 0, 0, 0, 0);
    for section in sections {
        let _ = writeln!(s, "## {}\n", section.title);
        let _ = writeln!(
            s,
            "| Scenario | Passed | Failed | Warned | Client exit | Result | Note |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---|---|---|");
        let (mut p, mut f, mut w, mut ok) = (0, 0, 0, 0);
        for r in &section.rows {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} |",
                escape(&r.name),
                r.passed,
                r.failed,
                r.warned,
                escape(&r.client_exit),
                r.outcome.word(),
                escape(r.outcome.note())
            );
            p += r.passed;
            f += r.failed;
            w += r.warned;
            ok += usize::from(r.outcome == Outcome::Pass);
        }
        let expected = section
            .rows
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::ExpectedFail(_)))
            .count();
        let skipped = section
            .rows
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Skipped(_)))
            .count();
        let vacuous = section
            .rows
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Vacuous(_)))
            .count();
        let _ = writeln!(
            s,
            "| **Total** ({} rows: {ok} pass, {vacuous} vacuous, {expected} expected fail, {skipped} skipped, {} failing) | {p} | {f} | {w} | | | |\n",
            section.rows.len(),
            section.rows.len() - ok - vacuous - expected - skipped
        );
        gp += p;
        gf += f;
        gw += w;
        gpass += ok;
        gn += section.rows.len();
    }
    let _ = writeln!(
        s,
        "**Grand total:** {gn} rows, {gpass} pass; checks/tests {gp} passed, {gf} failed, {gw} warned (the failed checks include those of the expected-fail rows, listed in the baselines).\n"
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_rows_and_totals() {
        let t = render(&[Section {
            title: "suite".into(),
            rows: vec![
                Row {
                    name: "a".into(),
                    passed: 2,
                    failed: 0,
                    warned: 0,
                    client_exit: "0".into(),
                    outcome: Outcome::Pass,
                },
                Row {
                    name: "auth/b".into(),
                    passed: 0,
                    failed: 1,
                    warned: 1,
                    client_exit: "1".into(),
                    outcome: Outcome::ExpectedFail("OAuth | not built".into()),
                },
                Row {
                    name: "auth/c".into(),
                    passed: 1,
                    failed: 0,
                    warned: 0,
                    client_exit: "1 (allowed)".into(),
                    outcome: Outcome::Vacuous("nothing attempted".into()),
                },
            ],
        }]);
        assert!(t.contains("| Client exit |"), "{t}");
        assert!(t.contains("| a | 2 | 0 | 0 | 0 | PASS |  |"), "{t}");
        assert!(
            t.contains("| 1 | expected fail | OAuth \\| not built |"),
            "{t}"
        );
        assert!(
            t.contains("| auth/c | 1 | 0 | 0 | 1 (allowed) | passed vacuously (nothing attempted) | nothing attempted |"),
            "{t}"
        );
        assert!(
            t.contains(
                "(3 rows: 1 pass, 1 vacuous, 1 expected fail, 0 skipped, 0 failing) | 3 | 1 | 1 |"
            ),
            "{t}"
        );
    }
}
