//! Check 1: every published crate carries what crates.io and docs.rs show,
//! versions and inter-crate requirements agree, and what is not published
//! says `publish = false`.

use std::path::Path;

use serde_json::Value;

use super::workspace::{PUBLISH_ORDER, Package, Workspace};

/// Words that mark a URL nobody owns yet.
const PLACEHOLDERS: [&str; 6] = [
    "example.",
    ".invalid",
    "localhost",
    "placeholder",
    "todo",
    "your-",
];

/// The problems found, each naming its fix.
pub(crate) fn check(ws: &Workspace) -> Vec<String> {
    let mut problems = Vec::new();
    let published = ws.published();
    for name in PUBLISH_ORDER {
        match ws.package(name) {
            None => problems.push(format!("{name}: not a workspace member")),
            Some(p) if !p.publishable() => problems.push(format!(
                "{name}: `publish = false`, but it is one of the crates we publish (remove it, \
                 or take the crate out of PUBLISH_ORDER in xtask/src/release/workspace.rs)"
            )),
            Some(_) => {}
        }
    }
    for p in ws.packages.iter().filter(|p| p.publishable()) {
        if !PUBLISH_ORDER.contains(&p.name.as_str()) {
            problems.push(format!(
                "{}: would be published (add `publish = false` to its Cargo.toml, or add it to \
                 PUBLISH_ORDER in xtask/src/release/workspace.rs)",
                p.name
            ));
        }
    }
    let versions: Vec<&str> = published.iter().map(|p| p.version()).collect();
    let rust_versions: Vec<&str> = published
        .iter()
        .map(|p| p.json["rust_version"].as_str().unwrap_or(""))
        .collect();
    for p in &published {
        package(p, ws, &mut problems);
        if p.version() != versions[0] {
            problems.push(format!(
                "{}: version {} differs from {}'s {} (use `version.workspace = true`)",
                p.name,
                p.version(),
                published[0].name,
                versions[0]
            ));
        }
        if rust_versions.iter().any(|v| *v != rust_versions[0]) && p.name == published[0].name {
            problems.push(
                "the published crates declare different `rust-version`s (use \
                 `rust-version.workspace = true`)"
                    .to_string(),
            );
        }
    }
    problems
}

fn package(p: &Package, ws: &Workspace, problems: &mut Vec<String>) {
    let j = &p.json;
    let name = &p.name;
    let mut need = |field: &str, fix: &str| {
        let present = match &j[field] {
            Value::String(s) => !s.trim().is_empty(),
            Value::Array(a) => !a.is_empty(),
            _ => false,
        };
        if !present {
            problems.push(format!("{name}: no `{}` ({fix})", field.replace('_', "-")));
        }
    };
    need("description", "one sentence in [package]");
    need("license", "`license.workspace = true`");
    need("repository", "`repository.workspace = true`");
    need(
        "readme",
        "a README.md beside its Cargo.toml with a short example, and `readme = \"README.md\"`",
    );
    need("keywords", "up to 5 in [package]");
    need(
        "categories",
        "up to 5 crates.io category slugs in [package]",
    );
    need("rust_version", "`rust-version.workspace = true`");
    for field in ["repository", "homepage", "documentation"] {
        if let Some(url) = j[field].as_str() {
            let lower = url.to_ascii_lowercase();
            if !lower.starts_with("https://") || PLACEHOLDERS.iter().any(|w| lower.contains(w)) {
                problems.push(format!(
                    "{name}: `{field}` is a placeholder ({url}): set the real URL once, in \
                     [workspace.package]"
                ));
            }
        }
    }
    for (field, max) in [("keywords", 5), ("categories", 5)] {
        let items = j[field].as_array().map(Vec::len).unwrap_or(0);
        if items > max {
            problems.push(format!(
                "{name}: {items} {field}; crates.io takes at most {max}"
            ));
        }
    }
    for k in j["keywords"].as_array().into_iter().flatten() {
        let k = k.as_str().unwrap_or("");
        let ok = k.len() <= 20
            && k.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '+');
        if !ok {
            problems.push(format!(
                "{name}: keyword {k:?} is not one crates.io takes (ASCII letters, digits, `-`, \
                 `_`, at most 20 characters)"
            ));
        }
    }
    if let Some(readme) = j["readme"].as_str()
        && !p.dir.join(readme).is_file()
    {
        problems.push(format!(
            "{name}: its readme {readme} does not exist (write it beside Cargo.toml)"
        ));
    }
    if p.has_lib() && j["metadata"]["docs"]["rs"]["all-features"] != true {
        problems.push(format!(
            "{name}: no docs.rs metadata (add [package.metadata.docs.rs] all-features = true, \
             so feature-gated items are documented)"
        ));
    }
    if p.has_lib() {
        let lib = lib_source(p);
        for f in p.features() {
            if !lib.contains(&format!("`{f}`")) {
                problems.push(format!(
                    "{name}: feature `{f}` is not documented on the crate's front page (name it \
                     in the `# Feature flags` part of src/lib.rs)"
                ));
            }
        }
    }
    for dep in j["dependencies"].as_array().into_iter().flatten() {
        let kind = dep["kind"].as_str();
        if kind == Some("dev") || dep["path"].is_null() {
            continue;
        }
        let dep_name = dep["name"].as_str().unwrap_or("?");
        let req = dep["req"].as_str().unwrap_or("*");
        let Some(target) = ws.package(dep_name) else {
            continue;
        };
        if req == "*" {
            problems.push(format!(
                "{name}: depends on {dep_name} by path only; a published crate needs a version \
                 too (take it from [workspace.dependencies])"
            ));
        } else if req.trim_start_matches(['^', '=']) != target.version() {
            problems.push(format!(
                "{name}: requires {dep_name} {req}, but the workspace has {} (update \
                 [workspace.dependencies])",
                target.version()
            ));
        }
        if !target.publishable() {
            problems.push(format!(
                "{name}: depends on {dep_name}, which is never published (make it a \
                 dev-dependency, or publish it)"
            ));
        }
    }
}

/// The text of the package's `src/lib.rs` (empty when it cannot be read).
fn lib_source(p: &Package) -> String {
    p.front_page()
}

/// Crates outside the workspace (their own workspaces: fuzz targets, the
/// benchmarks) must not be published either.
pub(crate) fn outside(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mut manifests = Vec::new();
    for pattern_dir in ["crates", "bench"] {
        let Ok(entries) = std::fs::read_dir(root.join(pattern_dir)) else {
            continue;
        };
        for e in entries.flatten() {
            for candidate in [
                e.path().join("fuzz/Cargo.toml"),
                e.path().join("Cargo.toml"),
            ] {
                if pattern_dir == "crates" && !candidate.ends_with("fuzz/Cargo.toml") {
                    continue;
                }
                if candidate.is_file() {
                    manifests.push(candidate);
                }
            }
        }
    }
    for m in manifests {
        let text = std::fs::read_to_string(&m).unwrap_or_default();
        if !text.contains("[package]") {
            continue;
        }
        let unpublished = text.lines().any(|l| {
            let l: String = l.chars().filter(|c| !c.is_whitespace()).collect();
            l == "publish=false" || l == "publish.workspace=true"
        });
        if !unpublished {
            let shown = m.strip_prefix(root).unwrap_or(&m);
            problems.push(format!(
                "{}: not marked `publish = false` (add it to [package])",
                shown.display()
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pkg(name: &str, extra: Value) -> Value {
        let mut p = json!({
            "name": name, "version": "0.1.0", "publish": null,
            "description": "d", "license": "MIT OR Apache-2.0",
            "repository": "https://github.com/mcp-client-rs/mcp-client-rs",
            "readme": null, "keywords": ["mcp"], "categories": ["network-programming"],
            "rust_version": "1.88", "features": {}, "dependencies": [],
            "metadata": {"docs": {"rs": {"all-features": true}}},
            "manifest_path": format!("/nonexistent/{name}/Cargo.toml"),
            "targets": [{"kind": ["lib"]}],
        });
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        p
    }

    fn ws(extra: &[(&str, Value)]) -> Workspace {
        let mut packages: Vec<Value> = PUBLISH_ORDER
            .iter()
            .map(|n| {
                let e = extra
                    .iter()
                    .find(|(name, _)| name == n)
                    .map(|(_, v)| v.clone())
                    .unwrap_or(json!({}));
                pkg(n, e)
            })
            .collect();
        packages.push(pkg("xtask", json!({"publish": []})));
        Workspace::from_json(Path::new("/nonexistent"), &json!({"packages": packages}))
    }

    fn problems_of(extra: &[(&str, Value)]) -> Vec<String> {
        // No README files exist under /nonexistent: drop those lines.
        check(&ws(extra))
            .into_iter()
            .filter(|p| !p.contains("readme"))
            .collect()
    }

    #[test]
    fn a_complete_workspace_passes() {
        assert_eq!(problems_of(&[]), Vec::<String>::new());
    }

    #[test]
    fn a_placeholder_repository_names_the_fix() {
        let p = problems_of(&[(
            "mcpio-client",
            json!({"repository": "https://example.invalid/mcp-client-stack"}),
        )]);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("placeholder") && p[0].contains("[workspace.package]"));
    }

    #[test]
    fn a_path_only_dependency_and_a_stale_requirement_are_named() {
        let p = problems_of(&[(
            "mcpio-client",
            json!({"dependencies": [
                {"name": "mcpio-types", "req": "*", "path": "/x", "kind": null},
                {"name": "mcpio-transport", "req": "^0.0.9", "path": "/y", "kind": null},
                {"name": "mcp-tests", "req": "*", "path": "/z", "kind": "dev"},
            ]}),
        )]);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p[0].contains("by path only"), "{p:?}");
        assert!(p[1].contains("^0.0.9") && p[1].contains("0.1.0"), "{p:?}");
    }

    #[test]
    fn missing_fields_and_unmarked_crates_are_named() {
        let mut w = ws(&[("mcpio-types", json!({"keywords": [], "rust_version": null}))]);
        w.packages.push(Package {
            name: "mcp-tests".into(),
            json: pkg("mcp-tests", json!({})),
            dir: "/nonexistent/mcp-tests".into(),
        });
        let p: Vec<String> = check(&w)
            .into_iter()
            .filter(|p| !p.contains("readme"))
            .collect();
        assert!(
            p.iter().any(|l| l.contains("mcpio-types: no `keywords`")),
            "{p:?}"
        );
        assert!(
            p.iter()
                .any(|l| l.contains("mcpio-types: no `rust-version`")),
            "{p:?}"
        );
        assert!(
            p.iter()
                .any(|l| l.starts_with("mcp-tests: would be published")),
            "{p:?}"
        );
    }
}
