//! Where a type's `impl` blocks are: each in the file that defines the
//! type or in that file's folder (`a/b.rs` owns `a/b.rs` and `a/b/`; a type
//! of `a/mod.rs` owns `a/`), or, for a trait's impl, in the trait's. A type
//! whose methods are spread over unrelated files can only be read by
//! reading them all.

use std::collections::BTreeMap;

use super::imports::ident_at;

/// One `impl` block outside its type's file or folder.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Stray {
    /// The file with the block (module path).
    pub(super) file: String,
    /// `impl Trait for Type` or `impl Type`, as the check read it.
    pub(super) block: String,
    /// The files that define the type (module paths).
    pub(super) defined_in: Vec<String>,
}

/// The `impl` blocks of `files` (module path → code) that sit outside the
/// file or folder of their type and of their trait. Types and traits the
/// crate does not define (a macro's, another crate's) are not checked.
pub(super) fn strays(files: &BTreeMap<String, String>) -> Vec<Stray> {
    let mut defined: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (file, text) in files {
        for name in definitions(text) {
            defined.entry(name).or_default().push(file.clone());
        }
    }
    let owns = |owner: &str, file: &str| {
        owner.is_empty() || file == owner || file.starts_with(&format!("{owner}::"))
    };
    let at_home = |name: &str, file: &str| {
        defined
            .get(name)
            .is_some_and(|owners| owners.iter().any(|o| owns(o, file)))
    };
    let mut out = Vec::new();
    for (file, text) in files {
        for (trait_name, type_name) in impl_blocks(text) {
            let Some(owners) = defined.get(&type_name) else {
                continue;
            };
            if at_home(&type_name, file) || trait_name.as_deref().is_some_and(|t| at_home(t, file))
            {
                continue;
            }
            out.push(Stray {
                file: file.clone(),
                block: match &trait_name {
                    Some(t) => format!("impl {t} for {type_name}"),
                    None => format!("impl {type_name}"),
                },
                defined_in: owners.clone(),
            });
        }
    }
    out
}

/// The names of the structs, enums, unions and traits `text` defines.
fn definitions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut rest = line.trim_start();
        if let Some(after) = rest.strip_prefix("pub") {
            rest = after.trim_start();
            if rest.starts_with('(') {
                match rest.find(')') {
                    Some(close) => rest = rest[close + 1..].trim_start(),
                    None => continue,
                }
            }
        }
        for keyword in ["struct ", "enum ", "union ", "trait "] {
            if let Some(after) = rest.strip_prefix(keyword) {
                let name = ident_at(after);
                if !name.is_empty() {
                    out.push(name);
                }
            }
        }
    }
    out
}

/// `(trait, type)` of each `impl` block in `text`: `impl<…> Trait<…> for
/// path::Type<…>` gives `(Some("Trait"), "Type")`, `impl Type` gives
/// `(None, "Type")`.
fn impl_blocks(text: &str) -> Vec<(Option<String>, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let Some(mut rest) = trimmed.strip_prefix("impl") else {
            continue;
        };
        if !(rest.starts_with(' ') || rest.starts_with('<')) {
            continue;
        }
        rest = skip_generics(rest.trim_start());
        let header = rest.split(['{']).next().unwrap_or(rest);
        let header = header.split(" where").next().unwrap_or(header);
        let (trait_part, type_part) = match split_for(header) {
            Some((t, ty)) => (Some(t), ty),
            None => (None, header),
        };
        let type_name = last_name(type_part);
        if type_name.is_empty() {
            continue;
        }
        let trait_name = trait_part.map(last_name).filter(|t| !t.is_empty());
        out.push((trait_name, type_name));
    }
    out
}

/// `text` after the `<…>` it starts with, if it starts with one.
fn skip_generics(text: &str) -> &str {
    if !text.starts_with('<') {
        return text;
    }
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return text[i + 1..].trim_start();
                }
            }
            _ => {}
        }
    }
    ""
}

/// `(trait, type)` split at the ` for ` outside any `<…>`.
fn split_for(header: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let bytes = header.as_bytes();
    for (i, c) in header.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ' ' if depth == 0 && bytes.get(i..i + 5) == Some(b" for ") => {
                return Some((&header[..i], &header[i + 5..]));
            }
            _ => {}
        }
    }
    None
}

/// The last path segment's name of a type or trait as written: `&'a
/// dyn crate::x::Foo<T>` gives `Foo`.
fn last_name(written: &str) -> String {
    let mut text = written.trim();
    for prefix in ["&", "mut ", "dyn ", "'static ", "unsafe "] {
        text = text.strip_prefix(prefix).unwrap_or(text).trim_start();
    }
    if let Some(rest) = text.strip_prefix('\'') {
        text = rest.split_once(' ').map_or("", |(_, r)| r).trim_start();
    }
    let before_generics = text.split('<').next().unwrap_or(text);
    let last = before_generics
        .rsplit("::")
        .next()
        .unwrap_or(before_generics);
    ident_at(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(items: &[(&str, &str)]) -> BTreeMap<String, String> {
        items
            .iter()
            .map(|(n, t)| ((*n).to_owned(), (*t).to_owned()))
            .collect()
    }

    #[test]
    fn blocks_are_read_through_generics_paths_and_references() {
        let text = "impl<T: Into<Vec<u8>>> crate::x::Show<T> for super::Thing<T> where T: Clone {\nimpl Thing {\nimpl<'a> From<&'a str> for &'a Other {\n    fn impl_not() {}\nimplement";
        assert_eq!(
            impl_blocks(text),
            [
                (Some("Show".to_owned()), "Thing".to_owned()),
                (None, "Thing".to_owned()),
                (Some("From".to_owned()), "Other".to_owned()),
            ]
        );
        assert_eq!(
            definitions("pub(crate) struct A {\nenum B\n  pub trait C: Send {\nstruct"),
            ["A", "B", "C"]
        );
    }

    #[test]
    fn a_block_away_from_its_type_is_a_stray_and_one_at_home_is_not() {
        let found = strays(&files(&[
            ("state", "pub(crate) struct Inner {}\nimpl Inner {}"),
            ("state::flow", "impl Inner {}"),
            ("provider", "impl Inner {}\nimpl Display for Inner {}"),
            ("hook", "pub trait Hook {}\nimpl Hook for Inner {}"),
            ("", "impl Outside {}"),
        ]));
        assert_eq!(
            found,
            [
                Stray {
                    file: "provider".into(),
                    block: "impl Inner".into(),
                    defined_in: vec!["state".into()],
                },
                Stray {
                    file: "provider".into(),
                    block: "impl Display for Inner".into(),
                    defined_in: vec!["state".into()],
                },
            ]
        );
    }
}
