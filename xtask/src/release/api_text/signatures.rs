//! Signatures: functions, generics, bounds, paths and types written as a
//! user reads them in source, for the item lines of the parent module.

use serde_json::Value;

use super::{Renderer, id_key};

impl Renderer<'_> {
    pub(super) fn function(&self, item: &Value, f: &Value, path: &str) -> String {
        let h = &f["header"];
        let mut q = String::new();
        if h["is_const"] == true {
            q.push_str("const ");
        }
        if h["is_async"] == true {
            q.push_str("async ");
        }
        if h["is_unsafe"] == true {
            q.push_str("unsafe ");
        }
        match &h["abi"] {
            Value::String(s) if s == "Rust" => {}
            Value::Null => {}
            Value::String(s) => q.push_str(&format!("extern \"{s}\" ")),
            Value::Object(o) => {
                if let Some(k) = o.keys().next() {
                    q.push_str(&format!("extern \"{k}\" "));
                }
            }
            _ => {}
        }
        let g = self.generics_decl(&f["generics"]);
        let w = self.where_clause(&f["generics"]);
        let sig = &f["sig"];
        let args: Vec<String> = sig["inputs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|pair| {
                let name = pair[0].as_str().unwrap_or("_");
                let t = &pair[1];
                if name == "self" {
                    match (t.get("generic"), t.get("borrowed_ref")) {
                        (Some(g), _) if g == "Self" => return "self".to_string(),
                        (_, Some(r)) if r["type"]["generic"] == "Self" => {
                            let lt = r["lifetime"]
                                .as_str()
                                .map(|l| format!("{l} "))
                                .unwrap_or_default();
                            let m = if r["is_mutable"] == true { "mut " } else { "" };
                            return format!("&{lt}{m}self");
                        }
                        _ => return format!("self: {}", self.ty(t)),
                    }
                }
                format!("{name}: {}", self.ty(t))
            })
            .collect();
        let ret = if sig["output"].is_null() {
            String::new()
        } else {
            format!(" -> {}", self.ty(&sig["output"]))
        };
        let dep = if item["deprecation"].is_null() {
            ""
        } else {
            "#[deprecated] "
        };
        format!("{dep}pub {q}fn {path}{g}({}){ret}{w}", args.join(", "))
    }

    pub(super) fn generics_decl(&self, g: &Value) -> String {
        let params: Vec<String> = g["params"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| self.generic_param(p))
            .collect();
        if params.is_empty() {
            String::new()
        } else {
            format!("<{}>", params.join(", "))
        }
    }

    pub(super) fn generic_param(&self, p: &Value) -> Option<String> {
        let name = p["name"].as_str().unwrap_or("?");
        let kind = &p["kind"];
        if let Some(lt) = kind.get("lifetime") {
            let outlives: Vec<&str> = lt["outlives"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            return Some(if outlives.is_empty() {
                name.to_string()
            } else {
                format!("{name}: {}", outlives.join(" + "))
            });
        }
        if let Some(t) = kind.get("type") {
            if t["is_synthetic"] == true {
                return None;
            }
            let b = self.bounds(&t["bounds"]);
            let mut s = name.to_string();
            if !b.is_empty() {
                s.push_str(": ");
                s.push_str(&b);
            }
            if !t["default"].is_null() {
                s.push_str(" = ");
                s.push_str(&self.ty(&t["default"]));
            }
            return Some(s);
        }
        if let Some(c) = kind.get("const") {
            let mut s = format!("const {name}: {}", self.ty(&c["type"]));
            if let Some(d) = c["default"].as_str() {
                s.push_str(&format!(" = {d}"));
            }
            return Some(s);
        }
        Some(name.to_string())
    }

    pub(super) fn where_clause(&self, g: &Value) -> String {
        let preds: Vec<String> = g["where_predicates"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| {
                if let Some(b) = p.get("bound_predicate") {
                    let hrtb = self.hrtb(&b["generic_params"]);
                    Some(format!(
                        "{hrtb}{}: {}",
                        self.ty(&b["type"]),
                        self.bounds(&b["bounds"])
                    ))
                } else if let Some(l) = p.get("lifetime_predicate") {
                    let outlives: Vec<&str> = l["outlives"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect();
                    Some(format!(
                        "{}: {}",
                        l["lifetime"].as_str().unwrap_or("'_"),
                        outlives.join(" + ")
                    ))
                } else {
                    p.get("eq_predicate")
                        .map(|e| format!("{} = {}", self.ty(&e["lhs"]), self.term(&e["rhs"])))
                }
            })
            .collect();
        if preds.is_empty() {
            String::new()
        } else {
            format!(" where {}", preds.join(", "))
        }
    }

    pub(super) fn hrtb(&self, params: &Value) -> String {
        let ps: Vec<String> = params
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| self.generic_param(p))
            .collect();
        if ps.is_empty() {
            String::new()
        } else {
            format!("for<{}> ", ps.join(", "))
        }
    }

    pub(super) fn bounds(&self, bounds: &Value) -> String {
        let bs: Vec<String> = bounds
            .as_array()
            .into_iter()
            .flatten()
            .map(|b| {
                if let Some(t) = b.get("trait_bound") {
                    let m = match t["modifier"].as_str() {
                        Some("maybe") => "?",
                        Some("maybe_const") => "~const ",
                        _ => "",
                    };
                    format!(
                        "{}{m}{}",
                        self.hrtb(&t["generic_params"]),
                        self.path(&t["trait"])
                    )
                } else if let Some(o) = b.get("outlives") {
                    o.as_str().unwrap_or("'_").to_string()
                } else if let Some(u) = b.get("use") {
                    let args: Vec<String> = u
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|a| match a {
                            Value::String(s) => s.clone(),
                            Value::Object(o) => o
                                .values()
                                .next()
                                .and_then(Value::as_str)
                                .unwrap_or("?")
                                .to_string(),
                            _ => "?".to_string(),
                        })
                        .collect();
                    format!("use<{}>", args.join(", "))
                } else {
                    b.to_string()
                }
            })
            .collect();
        bs.join(" + ")
    }

    pub(super) fn term(&self, t: &Value) -> String {
        if let Some(ty) = t.get("type") {
            self.ty(ty)
        } else if let Some(c) = t.get("constant") {
            c["expr"].as_str().unwrap_or("_").to_string()
        } else {
            self.ty(t)
        }
    }

    /// The name of a path's item: its public path when it is one of ours,
    /// else rustdoc's full path for it, else the path as written.
    pub(super) fn path_name(&self, p: &Value) -> String {
        let id = id_key(&p["id"]);
        if let Some(public) = self.public.get(&id) {
            return public.clone();
        }
        if let Some(parts) = self
            .paths
            .and_then(|ps| ps.get(&id))
            .and_then(|s| s["path"].as_array())
        {
            return parts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("::");
        }
        p["path"]
            .as_str()
            .or_else(|| p["name"].as_str())
            .unwrap_or("?")
            .trim_start_matches("::")
            .to_string()
    }

    pub(super) fn path(&self, p: &Value) -> String {
        format!("{}{}", self.path_name(p), self.generic_args(&p["args"]))
    }

    pub(super) fn generic_args(&self, args: &Value) -> String {
        if let Some(a) = args.get("angle_bracketed") {
            let mut parts: Vec<String> = a["args"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|arg| match arg {
                    Value::String(s) if s == "infer" => "_".to_string(),
                    _ => {
                        if let Some(t) = arg.get("type") {
                            self.ty(t)
                        } else if let Some(l) = arg.get("lifetime") {
                            l.as_str().unwrap_or("'_").to_string()
                        } else if let Some(c) = arg.get("const") {
                            c["expr"].as_str().unwrap_or("_").to_string()
                        } else {
                            arg.to_string()
                        }
                    }
                })
                .collect();
            for c in a["constraints"].as_array().into_iter().flatten() {
                let name = c["name"].as_str().unwrap_or("?");
                let cargs = self.generic_args(&c["args"]);
                let b = &c["binding"];
                if let Some(eq) = b.get("equality") {
                    parts.push(format!("{name}{cargs} = {}", self.term(eq)));
                } else if let Some(bs) = b.get("constraint") {
                    parts.push(format!("{name}{cargs}: {}", self.bounds(bs)));
                }
            }
            if parts.is_empty() {
                String::new()
            } else {
                format!("<{}>", parts.join(", "))
            }
        } else if let Some(p) = args.get("parenthesized") {
            let inputs: Vec<String> = p["inputs"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| self.ty(t))
                .collect();
            let out = if p["output"].is_null() {
                String::new()
            } else {
                format!(" -> {}", self.ty(&p["output"]))
            };
            format!("({}){out}", inputs.join(", "))
        } else if args.get("return_type_notation").is_some() || args == "return_type_notation" {
            "(..)".to_string()
        } else {
            String::new()
        }
    }

    pub(super) fn ty(&self, t: &Value) -> String {
        let Some(obj) = t.as_object() else {
            return match t.as_str() {
                Some("infer") => "_".to_string(),
                Some(s) => s.to_string(),
                None => "?".to_string(),
            };
        };
        let Some((kind, v)) = obj.iter().next() else {
            return "?".to_string();
        };
        match kind.as_str() {
            "resolved_path" => self.path(v),
            "dyn_trait" => {
                let mut parts: Vec<String> = v["traits"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|pt| {
                        format!(
                            "{}{}",
                            self.hrtb(&pt["generic_params"]),
                            self.path(&pt["trait"])
                        )
                    })
                    .collect();
                if let Some(l) = v["lifetime"].as_str() {
                    parts.push(l.to_string());
                }
                format!("dyn {}", parts.join(" + "))
            }
            "generic" | "primitive" => v.as_str().unwrap_or("?").to_string(),
            "function_pointer" => {
                let sig = &v["sig"];
                let args: Vec<String> = sig["inputs"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|pair| self.ty(&pair[1]))
                    .collect();
                let ret = if sig["output"].is_null() {
                    String::new()
                } else {
                    format!(" -> {}", self.ty(&sig["output"]))
                };
                format!(
                    "{}fn({}){ret}",
                    self.hrtb(&v["generic_params"]),
                    args.join(", ")
                )
            }
            "tuple" => {
                let parts: Vec<String> = v
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|t| self.ty(t))
                    .collect();
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            "slice" => format!("[{}]", self.ty(v)),
            "array" => format!(
                "[{}; {}]",
                self.ty(&v["type"]),
                v["len"].as_str().unwrap_or("_")
            ),
            "pat" => self.ty(&v["type"]),
            "impl_trait" => format!("impl {}", self.bounds(v)),
            "raw_pointer" => format!(
                "*{} {}",
                if v["is_mutable"] == true {
                    "mut"
                } else {
                    "const"
                },
                self.ty(&v["type"])
            ),
            "borrowed_ref" => {
                let lt = v["lifetime"]
                    .as_str()
                    .map(|l| format!("{l} "))
                    .unwrap_or_default();
                let m = if v["is_mutable"] == true { "mut " } else { "" };
                format!("&{lt}{m}{}", self.ty(&v["type"]))
            }
            "qualified_path" => {
                let name = v["name"].as_str().unwrap_or("?");
                let args = self.generic_args(&v["args"]);
                let self_ty = self.ty(&v["self_type"]);
                if v["trait"].is_null() {
                    format!("{self_ty}::{name}{args}")
                } else {
                    format!("<{self_ty} as {}>::{name}{args}", self.path(&v["trait"]))
                }
            }
            other => format!("<{other}>"),
        }
    }
}
