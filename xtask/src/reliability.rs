//! `docs/reliability.md`: one section per command (`fuzz`, `soak`,
//! `chaos`), each written whole by its command with `--report` and never
//! by hand. A section carries the machine, the commit and the command's
//! run time beside its table, so a contributor knows what to expect.

use std::path::Path;
use std::time::Duration;

use crate::util;

/// The page's header, written when the file is new.
const HEADER: &str = "# Reliability: fuzzing, soak and chaos, measured\n\n\
Written by `cargo xtask fuzz --report`, `cargo xtask soak --report` and \
`cargo xtask chaos --report`, one section each; never edit it by hand. Each \
section names the machine, the commit and how long its command ran. \
`cargo xtask test` runs the short versions (the kept fuzz corpora replayed, a \
10^4-call soak, the cheap chaos scenarios) without writing here.\n";

/// The order of the sections on the page.
const SECTIONS: [&str; 3] = ["fuzz", "soak", "chaos"];

fn begin(name: &str) -> String {
    format!("<!-- section:{name} -->")
}

fn end(name: &str) -> String {
    format!("<!-- /section:{name} -->")
}

/// `page` with section `name` replaced by `body` (or added in its place in
/// [`SECTIONS`] order); the other sections stay as they are.
pub(crate) fn replace_section(page: &str, name: &str, body: &str) -> String {
    let mut sections: Vec<(String, String)> = Vec::new();
    for section in SECTIONS {
        let (b, e) = (begin(section), end(section));
        let text = if section == name {
            Some(body.trim_end().to_string())
        } else {
            page.find(&b).and_then(|start| {
                page[start..]
                    .find(&e)
                    .map(|len| page[start + b.len()..start + len].trim().to_string())
            })
        };
        if let Some(text) = text {
            sections.push((section.to_string(), text));
        }
    }
    let mut out = String::from(HEADER);
    for (section, text) in sections {
        out.push('\n');
        out.push_str(&begin(&section));
        out.push('\n');
        out.push_str(&text);
        out.push('\n');
        out.push_str(&end(&section));
        out.push('\n');
    }
    out
}

/// Writes section `name` of `docs/reliability.md`.
pub(crate) fn write_section(root: &Path, name: &str, body: &str) -> Result<(), String> {
    let path = root.join("docs/reliability.md");
    let page = std::fs::read_to_string(&path).unwrap_or_default();
    std::fs::write(&path, replace_section(&page, name, body))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!("xtask: wrote the {name} section of {}", path.display());
    Ok(())
}

/// The lines every section starts with: the command, the machine, the
/// commit, the run time.
/// `load_at_start` is [`load_average`] read when the command started.
pub(crate) fn provenance(
    root: &Path,
    command: &str,
    took: Duration,
    load_at_start: &str,
) -> String {
    format!(
        "- command: `{command}`\n- machine: {}\n- load: average {load_at_start} when the command \
         started, {} when it ended (the 1-minute load average; on a 2-core machine anything \
         above 2 means other work shared the CPU with the run, and rates and times are \
         lower than a quiet machine gives)\n- commit: {}\n- run time: {}\n",
        machine(),
        load_average(),
        commit(root),
        human(took)
    )
}

/// The 1-minute load average, as the kernel gives it (`?` off Linux).
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// A duration as `1 h 02 min`, `3 min 05 s` or `12.3 s`.
pub(crate) fn human(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{} h {:02} min", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or_else(
            || "? GiB".into(),
            |kb| format!("{:.0} GiB", kb as f64 / 1_048_576.0),
        );
    format!(
        "{cpu}, {cores} cores, {mem} RAM, {} {}",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// The commit the tree is at, as `` `abc123` `` (with a note when it has
/// uncommitted changes to anything but what these commands write).
pub(crate) fn commit(root: &Path) -> String {
    let out = |args: &[&str]| {
        util::cmd("git", root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let head = out(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    // What these commands write themselves (this page, the kept fuzz
    // corpora) is not a change to the code they measured: a run of one
    // target after another must not call the next one's commit dirty.
    let dirty = out(&[
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        ".",
        ":(exclude)docs/reliability.md",
        ":(glob,exclude)crates/*/fuzz/corpus/**",
    ])
    .is_some_and(|s| !s.is_empty());
    if dirty {
        format!("`{head}` with uncommitted changes")
    } else {
        format!("`{head}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_is_replaced_and_the_others_kept_in_order() {
        let page = replace_section("", "chaos", "C1");
        let page = replace_section(&page, "fuzz", "F1\n");
        assert!(page.starts_with(HEADER));
        let f = page.find("F1").unwrap();
        let c = page.find("C1").unwrap();
        assert!(f < c, "{page}");
        let page = replace_section(&page, "fuzz", "F2");
        assert!(!page.contains("F1") && page.contains("F2") && page.contains("C1"));
        assert_eq!(replace_section(&page, "fuzz", "F2"), page);
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(human(Duration::from_millis(12_340)), "12.3 s");
        assert_eq!(human(Duration::from_secs(185)), "3 min 05 s");
        assert_eq!(human(Duration::from_secs(3720)), "1 h 02 min");
    }
}
