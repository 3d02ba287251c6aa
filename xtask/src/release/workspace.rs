//! The workspace as `cargo metadata --no-deps` describes it: what the release
//! checks read (packages, their manifests' fields, the workspace's
//! `[workspace.metadata.release]`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util;

/// The library crates, bottom layer first: the order they are published in
/// (each one's workspace dependencies come before it).
pub(crate) const PUBLISH_ORDER: [&str; 11] = [
    "mcpio-types",
    "mcpio-transport",
    "mcpio-transport-stdio",
    "mcpio-transport-http",
    "mcpio-transport-socket",
    "mcpio-auth",
    "mcpio-client",
    "mcpio-manager",
    "mcpio-llm",
    "mcpio",
    "mcpio-cli",
];

/// One package of the workspace.
#[derive(Debug, Clone)]
pub(crate) struct Package {
    pub(crate) name: String,
    /// The package as cargo metadata prints it.
    pub(crate) json: Value,
    /// The directory of its Cargo.toml.
    pub(crate) dir: PathBuf,
}

impl Package {
    pub(crate) fn version(&self) -> &str {
        self.json["version"].as_str().unwrap_or("?")
    }

    /// `publish = false` (cargo prints an empty registry list).
    pub(crate) fn publishable(&self) -> bool {
        self.json["publish"]
            .as_array()
            .is_none_or(|registries| !registries.is_empty())
    }

    /// Whether it has a library target (the API files are of those).
    pub(crate) fn has_lib(&self) -> bool {
        self.targets_of_kind("lib")
    }

    fn targets_of_kind(&self, kind: &str) -> bool {
        self.json["targets"].as_array().is_some_and(|ts| {
            ts.iter().any(|t| {
                t["kind"]
                    .as_array()
                    .is_some_and(|k| k.iter().any(|k| k == kind))
            })
        })
    }

    /// The features it declares, `default` excepted, sorted.
    pub(crate) fn features(&self) -> Vec<String> {
        let mut f: Vec<String> = self.json["features"]
            .as_object()
            .map(|o| o.keys().filter(|k| *k != "default").cloned().collect())
            .unwrap_or_default();
        f.sort();
        f
    }

    /// The crate's front page as `//!` lines: the inner doc comments of
    /// src/lib.rs, and when src/lib.rs makes its README the crate's doc
    /// (`#![doc = include_str!("../README.md")]`), the README's lines too.
    pub(crate) fn front_page(&self) -> String {
        let mut page = std::fs::read_to_string(self.dir.join("src/lib.rs")).unwrap_or_default();
        if page.contains("#![doc = include_str!(\"../README.md\")]")
            && let Ok(readme) = std::fs::read_to_string(self.dir.join("README.md"))
        {
            for line in readme.lines() {
                page.push_str("\n//! ");
                page.push_str(line);
            }
            page.push('\n');
        }
        page
    }

    /// The crate's name as Rust code writes it: its library target's name
    /// (`[lib] name`, `mcp_types` for the package `mcpio-types`), else the
    /// package name with `-` as `_`.
    pub(crate) fn crate_name(&self) -> String {
        self.json["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| {
                t["kind"]
                    .as_array()
                    .is_some_and(|k| k.iter().any(|k| k == "lib"))
            })
            .and_then(|t| t["name"].as_str())
            .map(str::to_string)
            .unwrap_or_else(|| self.name.replace('-', "_"))
    }
}

/// The workspace.
#[derive(Debug, Clone)]
pub(crate) struct Workspace {
    pub(crate) root: PathBuf,
    pub(crate) packages: Vec<Package>,
    /// `[workspace.metadata]`.
    pub(crate) metadata: Value,
}

impl Workspace {
    /// Reads `cargo metadata --no-deps` of the workspace at `root`.
    pub(crate) fn load(root: &Path) -> Result<Workspace, String> {
        let out = util::cargo(root)
            .args(["metadata", "--no-deps", "--format-version", "1"])
            .output()
            .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "cargo metadata failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let json: Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("cargo metadata printed no JSON: {e}"))?;
        Ok(Workspace::from_json(root, &json))
    }

    pub(crate) fn from_json(root: &Path, json: &Value) -> Workspace {
        let packages = json["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| Package {
                name: p["name"].as_str().unwrap_or("?").to_string(),
                dir: Path::new(p["manifest_path"].as_str().unwrap_or("."))
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default(),
                json: p.clone(),
            })
            .collect();
        Workspace {
            root: root.to_path_buf(),
            packages,
            metadata: json["metadata"].clone(),
        }
    }

    pub(crate) fn package(&self, name: &str) -> Option<&Package> {
        self.packages.iter().find(|p| p.name == name)
    }

    /// The packages that are published, in publishing order.
    pub(crate) fn published(&self) -> Vec<&Package> {
        let mut ps: Vec<&Package> = self.packages.iter().filter(|p| p.publishable()).collect();
        ps.sort_by_key(|p| {
            PUBLISH_ORDER
                .iter()
                .position(|n| *n == p.name)
                .unwrap_or(usize::MAX)
        });
        ps
    }

    /// The published packages with a library: the ones with an API file.
    pub(crate) fn libraries(&self) -> Vec<&Package> {
        self.published()
            .into_iter()
            .filter(|p| p.has_lib())
            .collect()
    }

    /// `[workspace.metadata.release] baseline`: the commit compared with
    /// before the first release tag.
    pub(crate) fn baseline(&self) -> Option<&str> {
        self.metadata["release"]["baseline"].as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate whose README is its doc (the facade) has the README's
    /// example and feature names on its front page; one that only
    /// doctests its README does not.
    #[test]
    fn a_readme_made_the_crate_doc_is_the_front_page() {
        let dir = super::super::scratch::Scratch::new("front-page");
        dir.write(
            "README.md",
            "# k\n\n```rust\nlet x = 1;\n```\n`a-feature`\n",
        );
        dir.write("src/lib.rs", "#![doc = include_str!(\"../README.md\")]\n");
        let p = Package {
            name: "k".into(),
            json: serde_json::json!({}),
            dir: dir.path().to_path_buf(),
        };
        let page = p.front_page();
        assert!(page.contains("\n//! ```rust\n//! let x = 1;\n"), "{page}");
        assert!(page.contains("//! `a-feature`"), "{page}");

        dir.write(
            "src/lib.rs",
            "//! k\n#[cfg(doctest)]\n#[doc = include_str!(\"../README.md\")]\nstruct R;\n",
        );
        assert!(!p.front_page().contains("a-feature"));
    }
}
