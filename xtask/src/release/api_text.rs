//! The public API of a crate as text, one item per line, from rustdoc's JSON
//! output (`--output-format json`): what `docs/api/<crate>.txt` holds.
//!
//! Items are named by the public path a user writes (`mcp_types::RequestId`,
//! not the private module that defines it). Inherent methods, fields,
//! variants, trait items and trait impls each get a line; impls that rustdoc
//! synthesizes are kept only for `Send` and `Sync` (a type that stops being
//! one of them breaks its users), and blanket impls are left out. Lines are
//! sorted, so a diff of the file is the API change.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

mod signatures;

/// The rustdoc JSON format versions this renderer was written against. A
/// toolchain with another one may still work: the check then says which.
pub(crate) const KNOWN_FORMATS: std::ops::RangeInclusive<u64> = 50..=60;

/// Renders the API of the crate described by `doc` (rustdoc JSON).
pub(crate) fn render(doc: &Value) -> Result<String, String> {
    let format = doc["format_version"].as_u64().unwrap_or(0);
    let root = doc["root"].clone();
    let index = doc["index"]
        .as_object()
        .ok_or("rustdoc JSON without an `index`")?;
    let mut r = Renderer {
        index,
        paths: doc["paths"].as_object(),
        public: HashMap::new(),
        lines: BTreeSet::new(),
        key: String::new(),
    };
    let root_item = r
        .item(&root)
        .ok_or("rustdoc JSON whose `root` is not in its index")?;
    let krate = root_item["name"].as_str().unwrap_or("crate").to_string();
    // Two passes: first the public path of every reachable item (so a type
    // in a signature is named where users find it), then the lines.
    let mut reachable = Vec::new();
    r.collect(&root, &krate, &mut reachable, &mut BTreeSet::new());
    for (id, path) in &reachable {
        let shorter = r
            .public
            .get(id)
            .is_none_or(|p: &String| (p.len(), p.as_str()) > (path.len(), path.as_str()));
        if shorter {
            r.public.insert(id.clone(), path.clone());
        }
    }
    for (id, path) in &reachable {
        r.item_lines(id, path);
    }
    let mut out = String::new();
    if !KNOWN_FORMATS.contains(&format) {
        return Err(format!(
            "rustdoc JSON format {format} is not one this renderer knows ({}..={}); check \
             xtask/src/release/api_text.rs against the toolchain's rustdoc-types",
            KNOWN_FORMATS.start(),
            KNOWN_FORMATS.end()
        ));
    }
    for (_, _, line) in &r.lines {
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

struct Renderer<'a> {
    index: &'a serde_json::Map<String, Value>,
    paths: Option<&'a serde_json::Map<String, Value>>,
    /// Item id → the shortest public path it is reachable by.
    public: HashMap<String, String>,
    /// (sort key, rank, line): an item's lines sort under its path, its
    /// own line (rank 0) before its members (1) and impls (2).
    lines: BTreeSet<(String, u8, String)>,
    key: String,
}

fn id_key(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn inner_kind(item: &Value) -> Option<(&str, &Value)> {
    item["inner"]
        .as_object()
        .and_then(|o| o.iter().next())
        .map(|(k, v)| (k.as_str(), v))
}

fn is_public(item: &Value) -> bool {
    item["visibility"] == "public"
}

fn attrs_say(item: &Value, what: &str) -> bool {
    item["attrs"].as_array().is_some_and(|attrs| {
        attrs.iter().any(|a| match a {
            Value::String(s) => s.contains(what),
            other => other.to_string().contains(what),
        })
    })
}

impl<'a> Renderer<'a> {
    fn item(&self, id: &Value) -> Option<&'a Value> {
        self.index.get(&id_key(id))
    }

    /// Every item reachable from module `id` at `path`, with that path.
    fn collect(
        &self,
        id: &Value,
        path: &str,
        out: &mut Vec<(String, String)>,
        seen: &mut BTreeSet<(String, String)>,
    ) {
        if !seen.insert((id_key(id), path.to_string())) {
            return;
        }
        let Some(item) = self.item(id) else { return };
        let Some(("module", module)) = inner_kind(item) else {
            return;
        };
        for child in module["items"].as_array().into_iter().flatten() {
            let Some(child_item) = self.item(child) else {
                continue;
            };
            match inner_kind(child_item) {
                Some(("use", u)) => {
                    if !is_public(child_item) {
                        continue;
                    }
                    let target = &u["id"];
                    let local = !target.is_null() && self.item(target).is_some();
                    if u["is_glob"] == true {
                        if local {
                            // The glob's items appear as if declared here.
                            self.collect_glob(target, path, out, seen);
                        } else {
                            out.push((
                                format!("use:{}", u["source"].as_str().unwrap_or("?")),
                                format!("{path}::*"),
                            ));
                        }
                        continue;
                    }
                    let name = u["name"].as_str().unwrap_or("?");
                    let at = format!("{path}::{name}");
                    if local {
                        out.push((id_key(target), at.clone()));
                        self.collect(target, &at, out, seen);
                    } else {
                        out.push((format!("use:{}", id_key(target)), at));
                        // Remember the source as written for foreign items
                        // rustdoc has no path for.
                        let _ = u;
                    }
                }
                _ => {
                    if !is_public(child_item) {
                        continue;
                    }
                    let name = child_item["name"].as_str().unwrap_or("?");
                    let at = format!("{path}::{name}");
                    out.push((id_key(child), at.clone()));
                    self.collect(child, &at, out, seen);
                }
            }
        }
    }

    fn collect_glob(
        &self,
        module: &Value,
        path: &str,
        out: &mut Vec<(String, String)>,
        seen: &mut BTreeSet<(String, String)>,
    ) {
        let Some(item) = self.item(module) else {
            return;
        };
        if !matches!(inner_kind(item), Some(("module", _))) {
            return;
        }
        // Walk the module's items as if they were children of `path`.
        let mut sub = Vec::new();
        self.collect(module, path, &mut sub, seen);
        out.extend(sub);
    }

    fn add(&mut self, rank: u8, line: String) {
        self.lines.insert((self.key.clone(), rank, line));
    }

    /// The lines of the item `id`, reachable at `path`.
    fn item_lines(&mut self, id: &str, path: &str) {
        self.key = path.to_string();
        if let Some(foreign) = id.strip_prefix("use:") {
            let target = self
                .paths
                .and_then(|p| p.get(foreign))
                .and_then(|s| s["path"].as_array())
                .map(|parts| {
                    parts
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("::")
                })
                .unwrap_or_else(|| foreign.to_string());
            self.add(0, format!("pub use {path} = {target}"));
            return;
        }
        let Some(item) = self.index.get(id) else {
            return;
        };
        let Some((kind, inner)) = inner_kind(item) else {
            return;
        };
        let ne = if attrs_say(item, "non_exhaustive") {
            "#[non_exhaustive] "
        } else {
            ""
        };
        match kind {
            "module" => {
                self.add(0, format!("pub mod {path}"));
            }
            "struct" => {
                let g = self.generics_decl(&inner["generics"]);
                let w = self.where_clause(&inner["generics"]);
                let shape = match &inner["kind"] {
                    Value::String(s) if s == "unit" => ";".to_string(),
                    Value::Object(o) if o.contains_key("tuple") => {
                        let fields: Vec<String> = o["tuple"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .map(|f| match self.item(f) {
                                Some(fi) if is_public(fi) => {
                                    format!("pub {}", self.ty(&fi["inner"]["struct_field"]))
                                }
                                _ => "_".to_string(),
                            })
                            .collect();
                        format!("({})", fields.join(", "))
                    }
                    Value::Object(o) if o.contains_key("plain") => {
                        let plain = &o["plain"];
                        for f in plain["fields"].as_array().into_iter().flatten() {
                            if let Some(fi) = self.item(f).filter(|fi| is_public(fi)) {
                                let name = fi["name"].as_str().unwrap_or("?");
                                let t = self.ty(&fi["inner"]["struct_field"]);
                                self.add(1, format!("pub {path}::{name}: {t}"));
                            }
                        }
                        if plain["has_stripped_fields"] == true {
                            " { .. }".to_string()
                        } else {
                            String::new()
                        }
                    }
                    _ => String::new(),
                };
                self.add(0, format!("{ne}pub struct {path}{g}{shape}{w}"));
                self.impls(&inner["impls"], path);
            }
            "union" => {
                let g = self.generics_decl(&inner["generics"]);
                self.add(0, format!("{ne}pub union {path}{g}"));
                for f in inner["fields"].as_array().into_iter().flatten() {
                    if let Some(fi) = self.item(f).filter(|fi| is_public(fi)) {
                        let name = fi["name"].as_str().unwrap_or("?");
                        let t = self.ty(&fi["inner"]["struct_field"]);
                        self.add(1, format!("pub {path}::{name}: {t}"));
                    }
                }
                self.impls(&inner["impls"], path);
            }
            "enum" => {
                let g = self.generics_decl(&inner["generics"]);
                let w = self.where_clause(&inner["generics"]);
                self.add(0, format!("{ne}pub enum {path}{g}{w}"));
                for v in inner["variants"].as_array().into_iter().flatten() {
                    if let Some(vi) = self.item(v) {
                        self.variant(vi, path);
                    }
                }
                self.impls(&inner["impls"], path);
            }
            "function" => {
                let f = self.function(item, inner, path);
                self.add(0, f);
            }
            "trait" => {
                let g = self.generics_decl(&inner["generics"]);
                let w = self.where_clause(&inner["generics"]);
                let bounds = self.bounds(&inner["bounds"]);
                let bounds = if bounds.is_empty() {
                    String::new()
                } else {
                    format!(": {bounds}")
                };
                let unsafety = if inner["is_unsafe"] == true {
                    "unsafe "
                } else {
                    ""
                };
                let auto = if inner["is_auto"] == true {
                    "auto "
                } else {
                    ""
                };
                self.add(0, format!("pub {unsafety}{auto}trait {path}{g}{bounds}{w}"));
                for t in inner["items"].as_array().into_iter().flatten() {
                    if let Some(ti) = self.item(t) {
                        self.trait_item(ti, path);
                    }
                }
                for i in inner["implementations"].as_array().into_iter().flatten() {
                    self.impl_line(i, None);
                }
            }
            "trait_alias" => {
                let g = self.generics_decl(&inner["generics"]);
                let b = self.bounds(&inner["params"]);
                self.add(0, format!("pub trait {path}{g} = {b}"));
            }
            "type_alias" => {
                let g = self.generics_decl(&inner["generics"]);
                let t = self.ty(&inner["type"]);
                self.add(0, format!("pub type {path}{g} = {t}"));
            }
            "constant" => {
                let t = self.ty(&inner["type"]);
                self.add(0, format!("pub const {path}: {t}"));
            }
            "static" => {
                let t = self.ty(&inner["type"]);
                let m = if inner["is_mutable"] == true {
                    "mut "
                } else {
                    ""
                };
                self.add(0, format!("pub static {m}{path}: {t}"));
            }
            "macro" => {
                self.add(0, format!("pub macro {path}!"));
            }
            "proc_macro" => {
                let k = inner["kind"].as_str().unwrap_or("bang");
                self.add(0, format!("pub proc_macro({k}) {path}"));
            }
            "extern_type" => {
                self.add(0, format!("pub extern type {path}"));
            }
            other => {
                self.add(0, format!("pub {other} {path}"));
            }
        }
    }

    fn variant(&mut self, v: &Value, parent: &str) {
        let name = v["name"].as_str().unwrap_or("?");
        let inner = &v["inner"]["variant"];
        let path = format!("{parent}::{name}");
        let disc = inner["discriminant"]["expr"]
            .as_str()
            .map(|e| format!(" = {e}"))
            .unwrap_or_default();
        let line = match &inner["kind"] {
            Value::Object(o) if o.contains_key("tuple") => {
                let fields: Vec<String> = o["tuple"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|f| match self.item(f) {
                        Some(fi) => self.ty(&fi["inner"]["struct_field"]),
                        None => "_".to_string(),
                    })
                    .collect();
                format!("pub {path}({})", fields.join(", "))
            }
            Value::Object(o) if o.contains_key("struct") => {
                let s = &o["struct"];
                for f in s["fields"].as_array().into_iter().flatten() {
                    if let Some(fi) = self.item(f) {
                        let fname = fi["name"].as_str().unwrap_or("?");
                        let t = self.ty(&fi["inner"]["struct_field"]);
                        self.add(1, format!("pub {path}::{fname}: {t}"));
                    }
                }
                let stripped = if s["has_stripped_fields"] == true {
                    " { .. }"
                } else {
                    ""
                };
                format!("pub {path}{stripped}")
            }
            _ => format!("pub {path}{disc}"),
        };
        let ne = if attrs_say(v, "non_exhaustive") {
            "#[non_exhaustive] "
        } else {
            ""
        };
        self.add(1, format!("{ne}{line}"));
    }

    fn trait_item(&mut self, ti: &Value, trait_path: &str) {
        let name = ti["name"].as_str().unwrap_or("?");
        let path = format!("{trait_path}::{name}");
        match inner_kind(ti) {
            Some(("function", f)) => {
                let mut line = self.function(ti, f, &path);
                if f["has_body"] == true {
                    line.push_str(" (provided)");
                }
                self.add(1, line);
            }
            Some(("assoc_type", t)) => {
                let g = self.generics_decl(&t["generics"]);
                let b = self.bounds(&t["bounds"]);
                let b = if b.is_empty() {
                    String::new()
                } else {
                    format!(": {b}")
                };
                let d = if t["type"].is_null() {
                    String::new()
                } else {
                    format!(" = {}", self.ty(&t["type"]))
                };
                self.add(1, format!("pub type {path}{g}{b}{d}"));
            }
            Some(("assoc_const", c)) => {
                let t = self.ty(&c["type"]);
                let d = if c["value"].is_null() {
                    ""
                } else {
                    " (provided)"
                };
                self.add(1, format!("pub const {path}: {t}{d}"));
            }
            _ => {}
        }
    }

    fn impls(&mut self, impls: &Value, type_path: &str) {
        for i in impls.as_array().into_iter().flatten() {
            self.impl_line(i, Some(type_path));
        }
    }

    /// An impl: its line, and for an inherent impl the lines of its public
    /// items under `type_path`.
    fn impl_line(&mut self, id: &Value, type_path: Option<&str>) {
        let Some(item) = self.item(id) else { return };
        let Some(("impl", imp)) = inner_kind(item) else {
            return;
        };
        if !imp["blanket_impl"].is_null() {
            return;
        }
        let trait_ = &imp["trait"];
        let trait_name = if trait_.is_null() {
            String::new()
        } else {
            self.path_name(trait_)
        };
        // The compiler's own marker for `derive(PartialEq)`: unstable, not
        // something users name.
        if trait_name.ends_with("::StructuralPartialEq") {
            return;
        }
        if imp["is_synthetic"] == true {
            let name = &trait_name;
            if !(name.ends_with("::Send") || name.ends_with("::Sync")) {
                return;
            }
        }
        let g = self.generics_decl(&imp["generics"]);
        let w = self.where_clause(&imp["generics"]);
        let for_ = self.ty(&imp["for"]);
        let unsafety = if imp["is_unsafe"] == true {
            "unsafe "
        } else {
            ""
        };
        if trait_.is_null() {
            // The header says something only when the impl is generic.
            if !g.is_empty() || !w.is_empty() {
                self.add(2, format!("impl{g} {for_}{w}"));
            }
            let Some(type_path) = type_path else { return };
            for m in imp["items"].as_array().into_iter().flatten() {
                let Some(mi) = self.item(m) else { continue };
                if !is_public(mi) {
                    continue;
                }
                let name = mi["name"].as_str().unwrap_or("?");
                let path = format!("{type_path}::{name}");
                match inner_kind(mi) {
                    Some(("function", f)) => {
                        let line = self.function(mi, f, &path);
                        self.add(1, line);
                    }
                    Some(("assoc_const", c)) => {
                        let t = self.ty(&c["type"]);
                        self.add(1, format!("pub const {path}: {t}"));
                    }
                    Some(("assoc_type", t)) => {
                        let ty = self.ty(&t["type"]);
                        self.add(1, format!("pub type {path} = {ty}"));
                    }
                    _ => {}
                }
            }
            return;
        }
        let neg = if imp["is_negative"] == true { "!" } else { "" };
        let tr = self.path(trait_);
        // Associated types of a trait impl are part of what it promises
        // (`type Error = ...` of `TryFrom`).
        let mut assoc = Vec::new();
        for m in imp["items"].as_array().into_iter().flatten() {
            if let Some(mi) = self.item(m)
                && let Some(("assoc_type", t)) = inner_kind(mi)
            {
                let name = mi["name"].as_str().unwrap_or("?");
                assoc.push(format!("type {name} = {}", self.ty(&t["type"])));
            }
        }
        let assoc = if assoc.is_empty() {
            String::new()
        } else {
            format!(" {{ {} }}", assoc.join("; "))
        };
        self.add(
            2,
            format!("{unsafety}impl{g} {neg}{tr} for {for_}{w}{assoc}"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn path(id: u32, name: &str) -> Value {
        json!({"resolved_path": {"path": name, "id": id, "args": null}})
    }

    /// A crate `k` with a private module `m` defining `pub struct S { pub a: u8, .. }`
    /// re-exported at the root, an inherent `pub fn get(&self) -> Option<S>`, a
    /// `Debug` impl and a synthesized `Send` and `Unpin`.
    fn doc() -> Value {
        let none = json!({"params": [], "where_predicates": []});
        json!({
            "format_version": 57,
            "root": 0,
            "index": {
                "0": {"name": "k", "visibility": "public", "attrs": [],
                      "inner": {"module": {"items": [1, 2]}}},
                "1": {"name": "m", "visibility": "crate", "attrs": [],
                      "inner": {"module": {"items": [3]}}},
                "2": {"name": null, "visibility": "public", "attrs": [],
                      "inner": {"use": {"source": "m::S", "name": "S", "id": 3, "is_glob": false}}},
                "3": {"name": "S", "visibility": "public", "attrs": ["non_exhaustive"],
                      "inner": {"struct": {"generics": none,
                        "kind": {"plain": {"fields": [4, 9], "has_stripped_fields": true}},
                        "impls": [5, 7, 8, 10]}}},
                "4": {"name": "a", "visibility": "public", "attrs": [],
                      "inner": {"struct_field": {"primitive": "u8"}}},
                "9": {"name": "hidden", "visibility": "crate", "attrs": [],
                      "inner": {"struct_field": {"primitive": "u8"}}},
                "5": {"name": null, "visibility": "default", "attrs": [],
                      "inner": {"impl": {"is_unsafe": false, "generics": none, "trait": null,
                        "for": path(3, "S"), "items": [6], "is_negative": false,
                        "is_synthetic": false, "blanket_impl": null}}},
                "6": {"name": "get", "visibility": "public", "attrs": [], "deprecation": null,
                      "inner": {"function": {"generics": none,
                        "header": {"is_const": false, "is_unsafe": false, "is_async": false, "abi": "Rust"},
                        "has_body": true,
                        "sig": {"inputs": [["self", {"borrowed_ref": {"lifetime": null, "is_mutable": false, "type": {"generic": "Self"}}}]],
                                "output": {"resolved_path": {"path": "Option", "id": 100,
                                  "args": {"angle_bracketed": {"args": [{"type": path(3, "S")}], "constraints": []}}}},
                                "is_c_variadic": false}}}},
                "7": {"name": null, "visibility": "default", "attrs": [],
                      "inner": {"impl": {"is_unsafe": false, "generics": none, "trait": {"path": "Debug", "id": 101, "args": null},
                        "for": path(3, "S"), "items": [], "is_negative": false,
                        "is_synthetic": false, "blanket_impl": null}}},
                "8": {"name": null, "visibility": "default", "attrs": [],
                      "inner": {"impl": {"is_unsafe": false, "generics": none, "trait": {"path": "Send", "id": 102, "args": null},
                        "for": path(3, "S"), "items": [], "is_negative": false,
                        "is_synthetic": true, "blanket_impl": null}}},
                "10": {"name": null, "visibility": "default", "attrs": [],
                      "inner": {"impl": {"is_unsafe": false, "generics": none, "trait": {"path": "Unpin", "id": 103, "args": null},
                        "for": path(3, "S"), "items": [], "is_negative": false,
                        "is_synthetic": true, "blanket_impl": null}}}
            },
            "paths": {
                "3": {"crate_id": 0, "path": ["k", "m", "S"], "kind": "struct"},
                "100": {"crate_id": 1, "path": ["core", "option", "Option"], "kind": "enum"},
                "101": {"crate_id": 1, "path": ["core", "fmt", "Debug"], "kind": "trait"},
                "102": {"crate_id": 1, "path": ["core", "marker", "Send"], "kind": "trait"},
                "103": {"crate_id": 1, "path": ["core", "marker", "Unpin"], "kind": "trait"}
            }
        })
    }

    #[test]
    fn items_are_named_by_their_public_path() {
        let text = render(&doc()).unwrap();
        assert_eq!(
            text,
            "#[non_exhaustive] pub struct k::S { .. }\n\
             pub fn k::S::get(&self) -> core::option::Option<k::S>\n\
             pub k::S::a: u8\n\
             impl core::fmt::Debug for k::S\n\
             impl core::marker::Send for k::S\n"
        );
    }

    #[test]
    fn a_removed_function_changes_the_text() {
        let before = render(&doc()).unwrap();
        let mut d = doc();
        d["index"]["5"]["inner"]["impl"]["items"] = json!([]);
        let after = render(&d).unwrap();
        assert!(before.contains("k::S::get"));
        assert!(!after.contains("k::S::get"));
    }

    /// Breaking the check on purpose: a removed public function fails the
    /// API check with the line that went and the fix.
    #[test]
    fn a_removed_function_fails_the_api_check_naming_the_fix() {
        let file = format!("# header\n{}", render(&doc()).unwrap());
        let mut d = doc();
        d["index"]["5"]["inner"]["impl"]["items"] = json!([]);
        let now = format!("# header\n{}", render(&d).unwrap());
        let problem = super::super::api::differs("k", "docs/api/k.txt", &file, &now);
        assert!(
            problem.starts_with("k: the public API differs from docs/api/k.txt:\n"),
            "{problem}"
        );
        assert!(
            problem.contains("    - pub fn k::S::get(&self) -> core::option::Option<k::S>\n"),
            "{problem}"
        );
        assert!(!problem.contains("    + "), "{problem}");
        assert!(problem.contains("run `cargo xtask release-check --write-api`"));
        assert!(problem.contains("if not, restore the item"));
    }

    #[test]
    fn an_unknown_format_is_named() {
        let mut d = doc();
        d["format_version"] = json!(1);
        let e = render(&d).unwrap_err();
        assert!(e.contains("format 1"), "{e}");
    }
}
