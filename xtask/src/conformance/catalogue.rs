//! Our own fault catalogue (`../shared/cases/catalogue.md`, headings `## B01: …`): each case
//! is covered by tests whose function names start with the case id (`b01_…`, or several ids
//! `b02_b03_…`), or by every test of an integration-test file whose `//!` doc names the
//! cases on a line of its own (`//! Catalogue cases: B02, B03, B04.`). We find those tests
//! in the workspace sources, run them with `cargo test` (filtered by the ids, unless the
//! file names its cases), and map each case id to its tests' libtest results.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::report::{Outcome, Row};

/// A catalogue case: `B01` and its heading text.
#[derive(Debug, Clone)]
pub(super) struct Case {
    /// `B01`.
    pub id: String,
    /// Heading after the id.
    pub title: String,
}

/// Case headings (`## B01: title`) of the catalogue text, in order.
pub(super) fn parse_cases(text: &str) -> Vec<Case> {
    text.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("## ")?;
            let (id, title) = rest.split_once(':')?;
            let id = id.trim();
            let ok =
                id.len() == 3 && id.starts_with('B') && id[1..].bytes().all(|b| b.is_ascii_digit());
            ok.then(|| Case {
                id: id.to_string(),
                title: title.trim().to_string(),
            })
        })
        .collect()
}

/// Every catalogue file of `dir` (`catalogue.md`, `catalogue-2.md`, …; other files are
/// ignored) with its cases, in order: `catalogue.md` first, then by number.
///
/// Errors: `dir` cannot be listed, a catalogue cannot be read, or there is none.
pub(super) fn read_catalogues(dir: &Path) -> Result<Vec<(String, Vec<Case>)>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {} ({e})", dir.display()))?;
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| catalogue_number(n).is_some())
        .collect();
    if names.is_empty() {
        return Err(format!("no catalogue*.md in {}", dir.display()));
    }
    names.sort_by_key(|n| (catalogue_number(n), n.clone()));
    names
        .into_iter()
        .map(|name| {
            let path = dir.join(&name);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {} ({e})", path.display()))?;
            Ok((name, parse_cases(&text)))
        })
        .collect()
}

/// The place of a catalogue file name in the order: `catalogue.md` is 1,
/// `catalogue-N.md` is N; anything else is not a catalogue.
pub(super) fn catalogue_number(name: &str) -> Option<u32> {
    let stem = name.strip_prefix("catalogue")?.strip_suffix(".md")?;
    if stem.is_empty() {
        return Some(1);
    }
    let n = stem.strip_prefix('-')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// An error per case id that more than one catalogue (or one catalogue twice) defines.
pub(super) fn duplicate_ids(files: &[(String, Vec<Case>)]) -> Vec<String> {
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    let mut errors = Vec::new();
    for (name, cases) in files {
        for case in cases {
            if let Some(first) = seen.insert(&case.id, name) {
                errors.push(format!(
                    "[catalogue] {} is defined in {first} and again in {name}",
                    case.id
                ));
            }
        }
    }
    errors
}

/// The case ids a test name covers: leading `bNN_` groups of its last path segment
/// (`sse::b02_b03_x` → `[B02, B03]`).
pub(super) fn case_ids_of(test_name: &str) -> Vec<String> {
    let last = test_name.rsplit("::").next().unwrap_or(test_name);
    let mut ids = Vec::new();
    for part in last.split('_') {
        let b = part.as_bytes();
        if b.len() == 3 && (b[0] == b'b' || b[0] == b'B') && b[1..].iter().all(u8::is_ascii_digit) {
            ids.push(format!("B{}", &part[1..]));
        } else {
            break;
        }
    }
    ids
}

/// The case ids a test file's `//!` doc names on its `Catalogue cases:` line
/// (`//! Catalogue cases: B02, B03, B04.` → `[B02, B03, B04]`); none without such a line.
pub(super) fn case_ids_of_doc(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for line in text.lines().map(str::trim_start) {
        let Some(doc) = line.strip_prefix("//!") else {
            continue;
        };
        let Some(list) = doc.trim_start().strip_prefix("Catalogue cases:") else {
            continue;
        };
        for word in list.split([',', ' ', '.']).filter(|w| !w.is_empty()) {
            let is_id = word.len() == 3
                && word.starts_with('B')
                && word[1..].bytes().all(|b| b.is_ascii_digit());
            if !is_id {
                break;
            }
            if !ids.iter().any(|id| id == word) {
                ids.push(word.to_string());
            }
        }
    }
    ids
}

/// libtest result of one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TestStatus {
    /// `ok`
    Ok,
    /// `FAILED`
    Failed,
    /// `ignored`
    Ignored,
}

/// `test <name> ... ok|FAILED|ignored` lines of libtest output.
pub(super) fn parse_libtest(output: &str) -> Vec<(String, TestStatus)> {
    output
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("test ")?;
            let (name, status) = rest.rsplit_once(" ... ")?;
            let status = match status.trim() {
                "ok" => TestStatus::Ok,
                "FAILED" => TestStatus::Failed,
                s if s.starts_with("ignored") => TestStatus::Ignored,
                _ => return None,
            };
            // Doc tests print `src/lib.rs - item (line N)`; they carry no case ids anyway.
            Some((name.trim().to_string(), status))
        })
        .collect()
}

/// Packages whose sources define a `fn bNN_…` test or hold a test file that names its
/// cases (file stem `bNN_…`, or a `Catalogue cases:` doc line): scans
/// `crates/*/{src,tests}` and `tests/{src,tests}` (skipping node_modules and target dirs).
pub(super) fn packages_with_case_tests(root: &Path) -> Result<BTreeSet<String>, String> {
    let mut dirs = Vec::new();
    for top in ["crates", "tests"] {
        let top = root.join(top);
        let Ok(entries) = std::fs::read_dir(&top) else {
            continue;
        };
        dirs.push(top.clone());
        for e in entries.flatten() {
            if e.path().is_dir() {
                dirs.push(e.path());
            }
        }
    }
    let mut packages = BTreeSet::new();
    for dir in dirs {
        let manifest = dir.join("Cargo.toml");
        let Some(name) = package_name(&manifest) else {
            continue;
        };
        let mut files = Vec::new();
        for sub in ["src", "tests"] {
            rust_files(&dir.join(sub), &mut files);
        }
        let has = files.iter().any(|f| {
            let named = f
                .file_stem()
                .is_some_and(|s| !case_ids_of(&s.to_string_lossy()).is_empty());
            named
                || std::fs::read_to_string(f)
                    .map(|t| defines_case_test(&t) || !case_ids_of_doc(&t).is_empty())
                    .unwrap_or(false)
        });
        if has {
            packages.insert(name);
        }
    }
    Ok(packages)
}

fn defines_case_test(text: &str) -> bool {
    text.match_indices("fn ").any(|(i, _)| {
        let rest = &text[i + 3..];
        !case_ids_of(rest.split('(').next().unwrap_or("")).is_empty()
    })
}

fn package_name(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).ok()?;
    let pkg = text.split("[package]").nth(1)?;
    pkg.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == "name").then(|| v.trim().trim_matches('"').to_string())
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if p.is_dir() {
            if name != "node_modules" && name != "target" && name != "peers" {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The catalogue part of the run.
#[derive(Debug)]
pub(super) struct CatalogueRun {
    /// One row per case.
    pub rows: Vec<Row>,
    /// Errors that fail the run.
    pub errors: Vec<String>,
}

/// A built test executable (`cargo test --no-run --message-format=json`).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct TestBinary {
    /// Target name: the integration-test file stem (`b05_utf8_split`) or the crate name.
    pub target: String,
    /// The executable.
    pub executable: PathBuf,
    /// The package directory (cargo runs tests from there).
    pub package_dir: PathBuf,
    /// The target's root source file (an integration test's `tests/<name>.rs`).
    pub src_path: Option<PathBuf>,
}

impl TestBinary {
    /// The case ids every test of this binary covers: those leading the target name
    /// (`b05_utf8_split`) and those its source file's doc names (`Catalogue cases:`).
    pub(super) fn case_ids(&self) -> Vec<String> {
        let mut ids = case_ids_of(&self.target);
        let doc = self
            .src_path
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default();
        for id in case_ids_of_doc(&doc) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        ids
    }
}

/// Test executables from cargo's JSON messages (`compiler-artifact` with `profile.test`).
pub(super) fn parse_test_binaries(json_lines: &str) -> Vec<TestBinary> {
    json_lines
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v.get("reason").and_then(|r| r.as_str()) == Some("compiler-artifact"))
        .filter(|v| v.pointer("/profile/test").and_then(|t| t.as_bool()) == Some(true))
        .filter_map(|v| {
            let executable = PathBuf::from(v.get("executable")?.as_str()?);
            let target = v.pointer("/target/name")?.as_str()?.to_string();
            let manifest = PathBuf::from(v.get("manifest_path")?.as_str()?);
            let src_path = v
                .pointer("/target/src_path")
                .and_then(|p| p.as_str())
                .map(PathBuf::from);
            Some(TestBinary {
                target,
                executable,
                package_dir: manifest.parent()?.to_path_buf(),
                src_path,
            })
        })
        .collect()
}

/// Runs the catalogue tests and maps them to the cases. A test covers the case ids
/// leading its function name (`b05_…`) and, in an integration-test file that names its
/// cases (`//! Catalogue cases: B02, B03, B04.`, or a file stem `b02_b03_…`), those of
/// the file.
pub(super) fn run(root: &Path, cases: &[Case]) -> Result<CatalogueRun, String> {
    let packages = packages_with_case_tests(root)?;
    let mut errors = Vec::new();
    // (case id, test label, status)
    let mut results: Vec<(String, String, TestStatus)> = Vec::new();
    if packages.is_empty() {
        errors.push("no package names a test or test file for a case (bNN_…)".to_string());
    } else {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        build.current_dir(root).args([
            "test",
            "--locked",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ]);
        for p in &packages {
            build.args(["-p", p]);
        }
        eprintln!(
            "==> catalogue tests: build cargo test -p {}",
            packages.iter().cloned().collect::<Vec<_>>().join(" -p ")
        );
        let out = build
            .output()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(25).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            errors.push(format!(
                "catalogue tests do not build:\n{}",
                tail.join("\n")
            ));
        }
        let filters: Vec<String> = cases
            .iter()
            .map(|c| format!("{}_", c.id.to_ascii_lowercase()))
            .collect();
        for bin in parse_test_binaries(&String::from_utf8_lossy(&out.stdout)) {
            let file_ids = bin.case_ids();
            let mut cmd = Command::new(&bin.executable);
            cmd.current_dir(&bin.package_dir);
            if file_ids.is_empty() {
                cmd.args(&filters);
            }
            let run = cmd
                .output()
                .map_err(|e| format!("cannot run {}: {e}", bin.executable.display()))?;
            let stdout = String::from_utf8_lossy(&run.stdout);
            let parsed = parse_libtest(&stdout);
            if !run.status.success() && parsed.iter().all(|(_, s)| *s != TestStatus::Failed) {
                errors.push(format!(
                    "catalogue test binary {} failed without a failing test ({})",
                    bin.target, run.status
                ));
            }
            for (name, status) in parsed {
                let mut ids = file_ids.clone();
                for id in case_ids_of(&name) {
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
                for id in ids {
                    results.push((id, format!("{}::{name}", bin.target), status));
                }
            }
        }
    }
    let mut by_case: BTreeMap<String, Vec<(String, TestStatus)>> = BTreeMap::new();
    for (id, label, status) in results {
        by_case.entry(id).or_default().push((label, status));
    }
    let mut rows = Vec::new();
    for case in cases {
        let tests = by_case.get(&case.id).map(Vec::as_slice).unwrap_or(&[]);
        let count = |s| tests.iter().filter(|(_, t)| *t == s).count();
        let (passed, failed, ignored) = (
            count(TestStatus::Ok),
            count(TestStatus::Failed),
            count(TestStatus::Ignored),
        );
        let outcome = if tests.is_empty() {
            errors.push(format!(
                "[catalogue] {}: no test named b{}_… and no tests/ file naming it (`//! Catalogue cases:`)",
                case.id,
                &case.id[1..]
            ));
            Outcome::Missing
        } else if failed > 0 || ignored > 0 {
            let bad: Vec<&str> = tests
                .iter()
                .filter(|(_, s)| *s != TestStatus::Ok)
                .map(|(n, _)| n.as_str())
                .collect();
            let why = format!("not passing: {}", bad.join(", "));
            errors.push(format!("[catalogue] {}: {why}", case.id));
            Outcome::Fail(why)
        } else {
            Outcome::Pass
        };
        rows.push(Row {
            name: format!("{}: {}", case.id, case.title),
            passed,
            failed,
            warned: ignored,
            client_exit: String::new(),
            outcome,
        });
    }
    Ok(CatalogueRun { rows, errors })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_case_headings_only() {
        let cases = parse_cases(
            "# Catalogue\n## Conventions\n## B01: SSE line endings\ntext\n## B29: Tool results\n## Not backed: x\n",
        );
        let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["B01", "B29"]);
        assert_eq!(cases[0].title, "SSE line endings");
    }

    #[test]
    fn every_catalogue_file_is_read_in_order() {
        assert_eq!(catalogue_number("catalogue.md"), Some(1));
        assert_eq!(catalogue_number("catalogue-2.md"), Some(2));
        assert_eq!(catalogue_number("catalogue-10.md"), Some(10));
        for other in [
            "README.md",
            "catalogue.txt",
            "catalogue-.md",
            "catalogue-x.md",
            "catalogue2.md",
            "old-catalogue.md",
        ] {
            assert_eq!(catalogue_number(other), None, "{other}");
        }
        let dir = std::env::temp_dir().join(format!("xtask-catalogues-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in [
            ("catalogue-10.md", "## B40: ten\n"),
            ("catalogue-2.md", "## B31: two\n## B36: six\n"),
            ("catalogue.md", "## B01: one\n"),
            ("README.md", "## B99: not a case file\n"),
        ] {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let files = read_catalogues(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let got: Vec<(&str, Vec<&str>)> = files
            .iter()
            .map(|(n, cases)| (n.as_str(), cases.iter().map(|c| c.id.as_str()).collect()))
            .collect();
        assert_eq!(
            got,
            [
                ("catalogue.md", vec!["B01"]),
                ("catalogue-2.md", vec!["B31", "B36"]),
                ("catalogue-10.md", vec!["B40"]),
            ]
        );
        assert!(duplicate_ids(&files).is_empty());
        let mut twice = files.clone();
        let first = twice[0].1[0].clone();
        twice[2].1.push(first);
        assert_eq!(duplicate_ids(&twice).len(), 1);
        assert!(read_catalogues(&std::env::temp_dir().join("xtask-no-such-dir")).is_err());
    }

    #[test]
    fn maps_test_names_to_case_ids() {
        assert_eq!(case_ids_of("b01_crlf"), ["B01"]);
        assert_eq!(case_ids_of("sse::tests::b02_b03_events"), ["B02", "B03"]);
        assert!(case_ids_of("tests::rb01_x").is_empty());
        assert!(case_ids_of("parses_b01").is_empty());
    }

    #[test]
    fn parses_libtest_lines() {
        let out = "running 3 tests\ntest a::b01_x ... ok\ntest b02_y ... FAILED\n\
                   test b03_z ... ignored, needs net\ntest result: ok. 1 passed\n";
        let r = parse_libtest(out);
        assert_eq!(
            r,
            vec![
                ("a::b01_x".to_string(), TestStatus::Ok),
                ("b02_y".to_string(), TestStatus::Failed),
                ("b03_z".to_string(), TestStatus::Ignored),
            ]
        );
    }

    #[test]
    fn reads_test_executables_from_cargo_json() {
        let json = r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/h/Cargo.toml","target":{"name":"b05_utf8_split","kind":["test"]},"profile":{"test":true},"executable":"/t/debug/deps/b05_utf8_split-1"}
{"reason":"compiler-artifact","manifest_path":"/w/crates/h/Cargo.toml","target":{"name":"h","kind":["lib"]},"profile":{"test":false},"executable":null}
{"reason":"build-finished","success":true}"#;
        let bins = parse_test_binaries(json);
        assert_eq!(bins.len(), 1);
        assert_eq!(bins[0].target, "b05_utf8_split");
        assert_eq!(bins[0].package_dir, PathBuf::from("/w/crates/h"));
        assert_eq!(bins[0].src_path, None);
        assert_eq!(bins[0].case_ids(), ["B05"]);
    }

    #[test]
    fn a_test_file_names_its_cases_in_its_doc() {
        let dir = std::env::temp_dir().join(format!("xtask-case-doc-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("tests")).unwrap();
        let file = dir.join("tests/sse_events.rs");
        std::fs::write(
            &file,
            "//! Priming events, multi-line data, comments (see B07 for media types).\n\
             //!\n//! Catalogue cases: B02, B03, B04.\n\nmod common;\n",
        )
        .unwrap();
        let json = format!(
            r#"{{"reason":"compiler-artifact","manifest_path":"{0}/Cargo.toml","target":{{"name":"sse_events","kind":["test"],"src_path":"{1}"}},"profile":{{"test":true}},"executable":"/t/debug/deps/sse_events-1"}}"#,
            dir.display(),
            file.display()
        );
        let bins = parse_test_binaries(&json);
        assert_eq!(bins[0].src_path.as_deref(), Some(file.as_path()));
        assert_eq!(bins[0].case_ids(), ["B02", "B03", "B04"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reads_the_catalogue_cases_line_only() {
        for (doc, ids) in [
            ("//! Catalogue cases: B01.\n", &["B01"][..]),
            ("//! Catalogue cases: B22, B24\n", &["B22", "B24"][..]),
            (
                "//!   Catalogue cases: B36 (real Python SDK)\n",
                &["B36"][..],
            ),
            ("//! B05 (SSE variant): a split character.\n", &[][..]),
            ("// Catalogue cases: B01.\n", &[][..]),
            ("//! Catalogue cases: b01, B1, B123.\n", &[][..]),
            (
                "//! a\n//! Catalogue cases: B34.\n//! Catalogue cases: B34, B35.\n",
                &["B34", "B35"][..],
            ),
        ] {
            assert_eq!(case_ids_of_doc(doc), ids, "{doc:?}");
        }
    }

    #[test]
    fn detects_case_test_definitions() {
        assert!(defines_case_test("#[test]\nfn b05_utf8_split() {}"));
        assert!(defines_case_test("async fn b02_b03_x() {}"));
        assert!(!defines_case_test("fn helper_b01() {}"));
    }
}
