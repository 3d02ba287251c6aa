//! Check 2: `cargo package` of every published crate, in dependency order
//! (cargo packages workspace dependencies first and resolves each package
//! against the ones packaged before it, as `cargo publish` would). With
//! verification, each packaged crate is built from its packaged sources
//! alone; either way the file lists are checked and the sizes printed.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use super::workspace::Workspace;
use crate::util;

/// A packaged file larger than this is a mistake (data, a binary, a log).
const LARGE_FILE: u64 = 256 * 1024;

/// Directories whose files a published crate never needs.
const NOT_SHIPPED: [&str; 5] = ["tests/", "benches/", "fuzz/", "examples/", "target/"];

/// What packaging found: the problems (each naming its fix) and each
/// crate's `.crate` size in bytes.
pub(crate) struct Packaged {
    pub(crate) problems: Vec<String>,
    pub(crate) sizes: BTreeMap<String, u64>,
}

/// Packages the published crates; `verify` builds each from its package.
pub(crate) fn check(ws: &Workspace, verify: bool) -> Result<Packaged, String> {
    let published = ws.published();
    // The verification builds in a target directory of its own, emptied
    // first: cargo takes a registry package's version as its content, and
    // the packages it builds against come from a local registry at the
    // version of the last run, so a build left by an earlier run (or a
    // shared target directory's) would be linked whatever it now holds.
    let verify_target = target_dir(&ws.root).join("release-check/verify-target");
    if verify {
        let _ = std::fs::remove_dir_all(&verify_target);
    }
    let build = |offline: bool| {
        let mut c = util::cargo(&ws.root);
        c.args(["package", "--locked", "--allow-dirty"]);
        if verify {
            c.env("CARGO_TARGET_DIR", &verify_target);
        }
        for p in &published {
            c.args(["-p", &p.name]);
        }
        if !verify {
            c.arg("--no-verify");
        }
        // Without verification the index entries cached by the builds
        // before this are enough; asking the registry costs seconds per
        // crate. Verification may need crates no build here downloaded.
        if offline && !verify {
            c.arg("--offline");
        }
        c
    };
    let what = if verify {
        "cargo package (each crate built from its packaged sources)"
    } else {
        "cargo package --no-verify (file lists)"
    };
    if verify {
        forget_unpacked(&published);
    }
    let mut problems = Vec::new();
    if util::run(&mut build(true), what).is_err() {
        eprintln!("xtask: retrying with the registry index online");
        if let Err(e) = util::run(&mut build(false), what) {
            problems.push(format!(
                "{e}: a packaged crate does not build from what it ships. Usually a file the \
                 code needs is missing from `include` in [workspace.package] of Cargo.toml \
                 (cargo's error above names it), or a dependency has no version; or the name \
                 of one of our crates is taken on crates.io, so a crate depending on it was \
                 built against that other crate (the metadata check names such names)"
            ));
            return Ok(Packaged {
                problems,
                sizes: BTreeMap::new(),
            });
        }
    }
    let dir = target_dir(&ws.root).join("package");
    if verify {
        // Where the other checks (the downstream crate) find the packages.
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for p in &published {
            let name = format!("{}-{}.crate", p.name, p.version());
            let from = verify_target.join("package").join(&name);
            std::fs::copy(&from, dir.join(&name))
                .map_err(|e| format!("copy {} to {}: {e}", from.display(), dir.display()))?;
        }
    }
    let mut sizes = BTreeMap::new();
    for p in &published {
        let file = dir.join(format!("{}-{}.crate", p.name, p.version()));
        let size = std::fs::metadata(&file)
            .map_err(|e| format!("{}: {e}", file.display()))?
            .len();
        sizes.insert(p.name.clone(), size);
        let listing = list(&file)?;
        let is_bin = !p.has_lib();
        problems.extend(files_problems(&p.name, &listing, is_bin));
        problems.extend(sources_missing(&p.name, &p.dir, &listing));
    }
    Ok(Packaged { problems, sizes })
}

/// Removes cargo's copies of our packages from its registry cache: the
/// unpacked `$CARGO_HOME/registry/src/*/<name>-<version>/` and the
/// `$CARGO_HOME/registry/cache/*/<name>-<version>.crate` they come from. A
/// verifying `cargo package` builds each package against the packages made
/// before it through a local overlay registry, and cargo fetches and
/// unpacks those once: a second run at the same version would build against
/// the first run's sources (a module added since is "not found"). None of
/// these is a crates.io download while the version is unpublished; once it
/// is, cargo fetches it again.
fn forget_unpacked(published: &[&super::workspace::Package]) {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    if let Some(home) = cargo_home {
        forget_unpacked_in(&home.join("registry/src"), published);
        forget_unpacked_in(&home.join("registry/cache"), published);
    }
}

/// [`forget_unpacked`] in the registry cache `src`.
fn forget_unpacked_in(src: &Path, published: &[&super::workspace::Package]) {
    let Ok(registries) = std::fs::read_dir(src) else {
        return;
    };
    for registry in registries.flatten() {
        for p in published {
            let name = format!("{}-{}", p.name, p.version());
            for path in [
                registry.path().join(&name),
                registry.path().join(format!("{name}.crate")),
            ] {
                let removed = if path.is_dir() {
                    std::fs::remove_dir_all(&path)
                } else if path.is_file() {
                    std::fs::remove_file(&path)
                } else {
                    continue;
                };
                match removed {
                    Ok(()) => eprintln!("xtask: removed the stale {}", path.display()),
                    Err(e) => eprintln!("xtask: cannot remove {}: {e}", path.display()),
                }
            }
        }
    }
}

/// The target directory cargo uses for this workspace.
pub(crate) fn target_dir(root: &Path) -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .map(|d| if d.is_absolute() { d } else { root.join(d) })
        .unwrap_or_else(|| root.join("target"))
}

/// The files of a `.crate` (a gzipped tar) with their sizes, paths relative
/// to the package.
fn list(file: &Path) -> Result<Vec<(String, u64)>, String> {
    let out = Command::new("tar")
        .arg("-tzvf")
        .arg(file)
        .output()
        .map_err(|e| format!("cannot run tar: {e}"))?;
    if !out.status.success() {
        return Err(format!("tar -tzvf {} failed", file.display()));
    }
    Ok(parse_tar_listing(&String::from_utf8_lossy(&out.stdout)))
}

/// `tar -tzvf` lines: `-rw-r--r-- 0/0  1234 2006-07-24 01:21 name-0.1.0/src/lib.rs`.
fn parse_tar_listing(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            let size = cols.get(2)?.parse().ok()?;
            let path = cols.get(5..)?.join(" ");
            let inner = path.split_once('/').map(|(_, rest)| rest.to_string())?;
            Some((inner, size))
        })
        .collect()
}

/// Every file under the crate's `src/` that git tracks must be in the
/// package: one left out by `include` is a build that works here and fails
/// for every user. (The verified build of the full check finds the rest,
/// such as a file outside `src/` that the code includes.)
fn sources_missing(name: &str, dir: &Path, files: &[(String, u64)]) -> Vec<String> {
    let Ok(out) = Command::new("git")
        .current_dir(dir)
        .args(["ls-files", "--", "src"])
        .output()
    else {
        return Vec::new();
    };
    let shipped: std::collections::BTreeSet<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|f| !shipped.contains(f))
        .map(|f| {
            format!(
                "{name}: {f} is not in the package, so the published crate cannot build (widen \
                 `include` in [workspace.package] of Cargo.toml, or the crate's own `include`)"
            )
        })
        .collect()
}

/// What is wrong with a package's file list.
fn files_problems(name: &str, files: &[(String, u64)], is_bin: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let has = |f: &str| files.iter().any(|(p, _)| p == f);
    let entry = if is_bin { "src/main.rs" } else { "src/lib.rs" };
    for needed in [
        "Cargo.toml",
        "README.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        entry,
    ] {
        if !has(needed) {
            problems.push(format!(
                "{name}: the package lacks {needed} (add it to `include` in [workspace.package], \
                 or create it; licence files are links to the workspace root's)"
            ));
        }
    }
    for (path, size) in files {
        if let Some(dir) = NOT_SHIPPED.iter().find(|d| path.starts_with(*d)) {
            problems.push(format!(
                "{name}: ships {path}, but {dir} is for the repository only (narrow `include` in \
                 [workspace.package])"
            ));
        }
        if *size > LARGE_FILE && path != "Cargo.lock" {
            problems.push(format!(
                "{name}: ships {path} of {} KiB (more than {} KiB: leave it out of `include`, or \
                 raise LARGE_FILE in xtask/src/release/package.rs if it must ship)",
                size / 1024,
                LARGE_FILE / 1024
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A second verified packaging at the same version must not build
    /// against the first one's unpacked sources: our packages' unpacked
    /// copies go, everything else in the cache stays.
    #[test]
    fn stale_unpacked_packages_are_forgotten() {
        let dir = super::super::scratch::Scratch::new("unpacked");
        dir.write("src/-overlay/mcpio-k-0.1.0/src/lib.rs", "");
        dir.write("src/index.crates.io-x/serde-1.0.0/src/lib.rs", "");
        dir.write("src/index.crates.io-x/mcpio-k-0.0.9/src/lib.rs", "");
        dir.write("src/-overlay/mcpio-k-0.1.0.crate", "stale");
        let json = serde_json::json!({"packages": [{
            "name": "mcpio-k", "version": "0.1.0", "publish": null,
            "manifest_path": "/nonexistent/k/Cargo.toml",
        }]});
        let ws = Workspace::from_json(dir.path(), &json);
        forget_unpacked_in(&dir.path().join("src"), &ws.published());
        assert!(!dir.path().join("src/-overlay/mcpio-k-0.1.0").exists());
        assert!(!dir.path().join("src/-overlay/mcpio-k-0.1.0.crate").exists());
        assert!(
            dir.path()
                .join("src/index.crates.io-x/serde-1.0.0")
                .exists()
        );
        assert!(
            dir.path()
                .join("src/index.crates.io-x/mcpio-k-0.0.9")
                .exists()
        );
    }

    #[test]
    fn reads_tar_listings() {
        let text = "-rw-r--r-- 0/0             129 2006-07-24 01:21 mcp-types-0.1.0/.cargo_vcs_info.json\n\
                    -rw-r--r-- 0/0           30343 2006-07-24 01:21 mcp-types-0.1.0/src/a b.rs\n";
        assert_eq!(
            parse_tar_listing(text),
            [
                (".cargo_vcs_info.json".to_string(), 129),
                ("src/a b.rs".to_string(), 30343)
            ]
        );
    }

    #[test]
    fn test_files_large_files_and_missing_readmes_are_named() {
        let files: Vec<(String, u64)> = [
            ("Cargo.toml", 10),
            ("LICENSE-MIT", 10),
            ("LICENSE-APACHE", 10),
            ("src/lib.rs", 10),
            ("tests/x.rs", 10),
            ("src/data.json", 1 << 20),
        ]
        .iter()
        .map(|(p, s)| (p.to_string(), *s))
        .collect();
        let p = files_problems("k", &files, false);
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].contains("lacks README.md"), "{p:?}");
        assert!(p[1].contains("ships tests/x.rs"), "{p:?}");
        assert!(p[2].contains("src/data.json of 1024 KiB"), "{p:?}");
    }

    /// Breaking the check on purpose: a crate whose `include` leaves out a
    /// source file. The file-list check (quick) names the file and the
    /// fix; the verified package (full) does not build.
    #[test]
    fn a_source_file_missing_from_include_fails() {
        let dir = super::super::scratch::Scratch::new("package");
        dir.write(
            "Cargo.toml",
            "[package]\nname = \"scratch-include\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\
             description = \"x\"\nlicense = \"MIT\"\n\
             include = [\"/src/lib.rs\"]\n[workspace]\n",
        );
        dir.write("src/lib.rs", "mod extra;\npub use extra::f;\n");
        dir.write("src/extra.rs", "pub fn f() {}\n");
        dir.git(&["init", "--quiet"]);
        dir.git(&["add", "."]);
        dir.git(&["commit", "--quiet", "-m", "scratch"]);
        let package = |verify: bool| {
            let mut c = util::cargo(dir.path());
            c.args(["package", "--allow-dirty", "--offline", "--quiet"])
                .env("CARGO_TARGET_DIR", dir.path().join("target"));
            if !verify {
                c.arg("--no-verify");
            }
            c.output().unwrap()
        };

        let out = package(false);
        assert!(out.status.success(), "{out:?}");
        let file = dir
            .path()
            .join("target/package/scratch-include-0.1.0.crate");
        let listing = list(&file).unwrap();
        let problems = sources_missing("scratch-include", dir.path(), &listing);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("scratch-include: src/extra.rs is not in the package"),
            "{problems:?}"
        );
        assert!(problems[0].contains("widen `include`"), "{problems:?}");

        let out = package(true);
        assert!(
            !out.status.success(),
            "the packaged crate built without src/extra.rs"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("extra"), "{err}");
    }
}
