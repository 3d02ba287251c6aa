//! Check 3: each layer alone. A scratch downstream crate per documented
//! combination depends on our crates by path, once with default features and
//! once with `default-features = false`; its dependency tree must not hold
//! what that layer promises to leave out. The full check also builds each in
//! release mode in a target directory of its own, so the printed time is the
//! cost of that layer from nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::workspace::Workspace;
use crate::util;

/// The HTTP stack: a stdio-only build must not compile it (the stdio layers'
/// lists below hold all of it; a test keeps them so).
#[cfg(test)]
const HTTP_STACK: [&str; 8] = [
    "hyper",
    "hyper-util",
    "h2",
    "rustls",
    "hyper-rustls",
    "ring",
    "webpki-roots",
    "mcpio-transport-http",
];

/// One documented combination of crates a downstream user may pick.
pub(crate) struct Layer {
    pub(crate) name: &'static str,
    pub(crate) crates: &'static [&'static str],
    /// Never in its tree, whatever the features.
    pub(crate) forbidden: &'static [&'static str],
    /// Also never in its tree with `default-features = false`.
    pub(crate) forbidden_without_defaults: &'static [&'static str],
    /// The features asked for beside `default-features = false`.
    pub(crate) features_without_defaults: &'static [&'static str],
    /// Why: printed with a violation.
    pub(crate) why: &'static str,
}

pub(crate) const LAYERS: [Layer; 8] = [
    Layer {
        name: "types",
        crates: &["mcpio-types"],
        forbidden: &[
            "tokio",
            "hyper",
            "rustls",
            "jsonschema",
            "mcpio-transport",
            "mcpio-auth",
        ],
        forbidden_without_defaults: &[],
        features_without_defaults: &[],
        why: "mcp-types is data only: serde, no I/O, no runtime",
    },
    Layer {
        name: "transport+stdio",
        crates: &["mcpio-transport", "mcpio-transport-stdio"],
        forbidden: &concat_forbidden::STDIO,
        forbidden_without_defaults: &[],
        features_without_defaults: &[],
        why: "a stdio-only user builds no HTTP stack, no schema validator, no OAuth",
    },
    Layer {
        name: "transport+socket",
        crates: &["mcpio-transport", "mcpio-transport-socket"],
        forbidden: &concat_forbidden::STDIO,
        forbidden_without_defaults: &[],
        features_without_defaults: &[],
        why: "a socket-only user builds the stdio framing and no HTTP stack, schema validator or \
              OAuth",
    },
    Layer {
        name: "client+stdio",
        crates: &["mcpio-client", "mcpio-transport-stdio"],
        forbidden: &concat_forbidden::STDIO_CLIENT,
        forbidden_without_defaults: &["jsonschema"],
        features_without_defaults: &[],
        why: "a stdio client builds no HTTP stack and no OAuth; without `schema-validation` no \
              jsonschema",
    },
    Layer {
        name: "client+http",
        crates: &["mcpio-client", "mcpio-transport-http"],
        forbidden: &["mcpio-auth", "mcpio-transport-stdio"],
        forbidden_without_defaults: &["jsonschema"],
        features_without_defaults: &[],
        why: "OAuth is a separate crate the user adds; without `schema-validation` no jsonschema",
    },
    Layer {
        name: "manager",
        crates: &["mcpio-manager"],
        forbidden: &["mcpio-auth"],
        forbidden_without_defaults: &["jsonschema"],
        features_without_defaults: &[],
        why: "mcp-auth comes only with the `oauth` feature (off by default); without \
              `schema-validation` no jsonschema",
    },
    Layer {
        name: "llm",
        crates: &["mcpio-llm"],
        forbidden: &["mcpio-auth"],
        forbidden_without_defaults: &["jsonschema"],
        features_without_defaults: &[],
        why: "the model-tool bridge is the manager's tree and no more: no OAuth, no provider \
              HTTP client; without `schema-validation` no jsonschema",
    },
    Layer {
        name: "mcpio",
        crates: &["mcpio"],
        forbidden: &["mcpio-auth", "mcpio-manager", "mcpio-llm", "jsonschema"],
        forbidden_without_defaults: &concat_forbidden::STDIO,
        features_without_defaults: &["stdio"],
        why: "the facade builds the layers its features name and no other: by default stdio and \
              HTTP (no OAuth, manager, model-tool bridge or schema validator); with only `stdio`, \
              no HTTP stack",
    },
];

/// The forbidden lists built from the HTTP stack (consts cannot concatenate
/// slices, so they are spelled out once here).
mod concat_forbidden {
    pub(super) const STDIO: [&str; 10] = [
        "hyper",
        "hyper-util",
        "h2",
        "rustls",
        "hyper-rustls",
        "ring",
        "webpki-roots",
        "mcpio-transport-http",
        "jsonschema",
        "mcpio-auth",
    ];
    pub(super) const STDIO_CLIENT: [&str; 9] = [
        "hyper",
        "hyper-util",
        "h2",
        "rustls",
        "hyper-rustls",
        "ring",
        "webpki-roots",
        "mcpio-transport-http",
        "mcpio-auth",
    ];
}

/// One variant's result.
pub(crate) struct LayerResult {
    pub(crate) label: String,
    pub(crate) dependencies: usize,
    /// Seconds of a cold release build (full check only).
    pub(crate) release_build_secs: Option<f64>,
}

/// Checks every layer; `build` also builds each variant in release mode.
pub(crate) fn check(
    ws: &Workspace,
    build: bool,
) -> Result<(Vec<String>, Vec<LayerResult>), String> {
    let scratch = super::package::target_dir(&ws.root).join("release-check/layers");
    let mut problems = Vec::new();
    let mut results = Vec::new();
    for layer in &LAYERS {
        for defaults in [true, false] {
            let label = format!(
                "{} ({})",
                layer.name,
                if defaults {
                    "default features".to_string()
                } else if layer.features_without_defaults.is_empty() {
                    "default-features = false".to_string()
                } else {
                    format!(
                        "default-features = false, features {}",
                        layer.features_without_defaults.join(", ")
                    )
                }
            );
            let dir = scratch.join(format!(
                "{}-{}",
                layer.name.replace('+', "-"),
                if defaults { "default" } else { "no-default" }
            ));
            write_crate(ws, &dir, layer, defaults)?;
            let tree = tree(&dir, None)?;
            problems.extend(forbidden_in(&dir, &tree, layer, &label, defaults));
            let mut result = LayerResult {
                label: label.clone(),
                dependencies: tree.len().saturating_sub(1),
                release_build_secs: None,
            };
            if build {
                match release_build(&dir) {
                    Ok(secs) => {
                        // Also as each ends: the table comes only after
                        // every build, and these builds take the longest.
                        eprintln!("xtask: layer {label}: cold release build {secs:.0} s");
                        result.release_build_secs = Some(secs);
                    }
                    Err(e) => problems.push(format!("layer {label}: {e}")),
                }
            }
            results.push(result);
        }
    }
    Ok((problems, results))
}

/// What `tree` (the scratch crate at `dir`) holds that `layer` must leave
/// out, each with what brings it in and the fix.
fn forbidden_in(
    dir: &Path,
    tree: &[(String, String)],
    layer: &Layer,
    label: &str,
    defaults: bool,
) -> Vec<String> {
    let names: BTreeSet<&str> = tree.iter().map(|(n, _)| n.as_str()).collect();
    let forbidden = layer.forbidden.iter().chain(if defaults {
        [].iter()
    } else {
        layer.forbidden_without_defaults.iter()
    });
    forbidden
        .filter(|f| names.contains(*f))
        .map(|f| {
            let why_here = tree_inverted(dir, f).unwrap_or_default();
            format!(
                "layer {label}: pulls in `{f}`, which it must not ({}). What brings it in \
                 (cargo tree -i {f}):\n{why_here}\n  fix: make that dependency optional behind \
                 a feature, or move the code that needs it to the layer that may have it",
                layer.why
            )
        })
        .collect()
}

/// Writes the scratch crate of `layer` at `dir`, with the workspace's lock
/// file so it resolves to the versions the workspace is tested with.
fn write_crate(ws: &Workspace, dir: &Path, layer: &Layer, defaults: bool) -> Result<(), String> {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    let mut manifest = format!(
        "# Written by cargo xtask release-check: a downstream crate using only {}.\n\
         [package]\nname = \"layer-{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\n\n[dependencies]\n",
        layer.crates.join(" + "),
        layer.name.replace('+', "-")
    );
    let mut lib = String::from("//! Uses each crate, so a build compiles it.\n");
    for c in layer.crates {
        let p = ws
            .package(c)
            .ok_or_else(|| format!("layer {}: no workspace crate {c}", layer.name))?;
        let features = if defaults {
            String::new()
        } else if layer.features_without_defaults.is_empty() {
            ", default-features = false".to_string()
        } else {
            format!(
                ", default-features = false, features = {:?}",
                layer.features_without_defaults
            )
        };
        manifest.push_str(&format!(
            "{c} = {{ path = {:?}{features} }}\n",
            p.dir.display().to_string(),
        ));
        lib.push_str(&format!("pub use {};\n", p.crate_name()));
    }
    manifest.push_str("\n[workspace]\n");
    let write = |path: PathBuf, text: &str| {
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write(dir.join("Cargo.toml"), &manifest)?;
    write(src.join("lib.rs"), &lib)?;
    std::fs::copy(ws.root.join("Cargo.lock"), dir.join("Cargo.lock"))
        .map_err(|e| format!("copy Cargo.lock to {}: {e}", dir.display()))?;
    Ok(())
}

/// The crates of a dependency tree (normal and build edges), each once, as
/// (name, version); the root included.
pub(crate) fn tree(dir: &Path, package: Option<&str>) -> Result<Vec<(String, String)>, String> {
    let run = |offline: bool| {
        let mut c = util::cargo(dir);
        c.args(["tree", "--edges", "normal,build", "--prefix", "none"]);
        if let Some(p) = package {
            c.args(["-p", p]);
        }
        if offline {
            c.arg("--offline");
        }
        c.output()
    };
    let mut out = run(true).map_err(|e| format!("cannot run cargo tree: {e}"))?;
    if !out.status.success() {
        out = run(false).map_err(|e| format!("cannot run cargo tree: {e}"))?;
    }
    if !out.status.success() {
        return Err(format!(
            "cargo tree in {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(parse_tree(&String::from_utf8_lossy(&out.stdout)))
}

/// `cargo tree --prefix none` lines (`name v1.2.3 (path) (*)`) → unique
/// (name, version).
fn parse_tree(text: &str) -> Vec<(String, String)> {
    let mut seen = BTreeSet::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if let (Some(name), Some(version)) = (words.next(), words.next())
            && let Some(v) = version.strip_prefix('v')
        {
            seen.insert((name.to_string(), v.to_string()));
        }
    }
    seen.into_iter().collect()
}

/// `cargo tree -i name` of the scratch crate: who depends on `name`.
fn tree_inverted(dir: &Path, name: &str) -> Option<String> {
    let out = util::cargo(dir)
        .args(["tree", "--edges", "normal,build", "--offline", "-i", name])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    Some(
        text.lines()
            .take(12)
            .map(|l| format!("    {l}"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// A release build of the scratch crate in its own, empty target directory;
/// the seconds it took. The directory is removed afterwards (disk).
fn release_build(dir: &Path) -> Result<f64, String> {
    let target = dir.join("target");
    let _ = std::fs::remove_dir_all(&target);
    let start = Instant::now();
    let result = util::run(
        util::cargo(dir)
            .args(["build", "--release", "--quiet"])
            .env("CARGO_TARGET_DIR", &target),
        &format!("cargo build --release of {}", dir.display()),
    );
    let secs = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&target);
    result.map(|()| secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cargo_tree_output() {
        let text = "layer-x v0.0.0 (/tmp/x)\nmcp-types v0.1.0 (/w/crates/mcp-types)\n\
                    serde v1.0.229\nserde_core v1.0.229\nserde v1.0.229 (*)\n\n";
        let t = parse_tree(text);
        assert_eq!(t.len(), 4);
        assert!(t.contains(&("serde".to_string(), "1.0.229".to_string())));
    }

    #[test]
    fn every_stdio_layer_forbids_the_http_stack() {
        for layer in LAYERS.iter().filter(|l| l.name.contains("stdio")) {
            for h in HTTP_STACK {
                assert!(layer.forbidden.contains(&h), "{} lets {h} in", layer.name);
            }
        }
        let facade = LAYERS.iter().find(|l| l.name == "mcpio").unwrap();
        assert_eq!(facade.features_without_defaults, ["stdio"]);
        for h in HTTP_STACK.iter().chain(&["jsonschema", "mcpio-auth"]) {
            assert!(
                facade.forbidden_without_defaults.contains(h),
                "the stdio-only facade lets {h} in"
            );
        }
    }

    /// Breaking the check on purpose: a stdio-only downstream crate whose
    /// tree holds `hyper` (here a local stand-in, so no registry is asked)
    /// fails, naming what brings it in and the fix.
    #[test]
    fn a_forbidden_dependency_in_a_stdio_tree_fails() {
        let dir = super::super::scratch::Scratch::new("layers");
        dir.write(
            "hyper/Cargo.toml",
            "[package]\nname = \"hyper\"\nversion = \"1.0.0\"\nedition = \"2024\"\n",
        );
        dir.write("hyper/src/lib.rs", "");
        dir.write(
            "fake-stdio/Cargo.toml",
            "[package]\nname = \"mcp-transport-stdio\"\nversion = \"0.1.0\"\n\
             edition = \"2024\"\n[dependencies]\nhyper = { path = \"../hyper\" }\n",
        );
        dir.write("fake-stdio/src/lib.rs", "");
        dir.write(
            "layer/Cargo.toml",
            "[package]\nname = \"layer-stdio\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             [dependencies]\nmcp-transport-stdio = { path = \"../fake-stdio\" }\n[workspace]\n",
        );
        dir.write("layer/src/lib.rs", "");
        let crate_dir = dir.path().join("layer");
        let stdio = LAYERS.iter().find(|l| l.name == "transport+stdio").unwrap();

        let tree = super::tree(&crate_dir, None).unwrap();
        let problems = forbidden_in(&crate_dir, &tree, stdio, "transport+stdio (test)", true);
        assert_eq!(problems.len(), 1, "{problems:?}");
        let p = &problems[0];
        assert!(
            p.starts_with("layer transport+stdio (test): pulls in `hyper`"),
            "{p}"
        );
        assert!(
            p.contains("mcp-transport-stdio v0.1.0"),
            "what brings it in: {p}"
        );
        assert!(
            p.contains("fix: make that dependency optional behind a feature"),
            "{p}"
        );

        // Without it, the same layer passes.
        dir.write(
            "fake-stdio/Cargo.toml",
            "[package]\nname = \"mcp-transport-stdio\"\nversion = \"0.1.0\"\n\
             edition = \"2024\"\n",
        );
        let tree = super::tree(&crate_dir, None).unwrap();
        assert!(forbidden_in(&crate_dir, &tree, stdio, "x", true).is_empty());
    }
}
