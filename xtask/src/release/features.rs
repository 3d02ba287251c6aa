//! Check 4: every feature combination of each library crate compiles and
//! passes clippy. The full check runs `cargo hack clippy --feature-powerset`
//! (each crate has at most a few features); the quick check runs clippy of
//! the crates that have features with `--no-default-features`, the one
//! combination CI's workspace build never compiles.

use super::tools::HACK;
use super::workspace::Workspace;
use crate::util;

/// The quick part: returns problems.
pub(crate) fn check_no_default(ws: &Workspace) -> Vec<String> {
    let with_features: Vec<String> = ws
        .libraries()
        .iter()
        .filter(|p| !p.features().is_empty())
        .map(|p| p.name.clone())
        .collect();
    let mut c = util::cargo(&ws.root);
    c.args(["clippy", "--locked", "--lib", "--no-default-features"]);
    for name in &with_features {
        c.args(["-p", name]);
    }
    c.args(["--", "-D", "warnings"]);
    match util::run(
        &mut c,
        &format!(
            "clippy --no-default-features of {}",
            with_features.join(", ")
        ),
    ) {
        Ok(()) => Vec::new(),
        Err(e) => vec![format!(
            "{e}: a crate does not build, or warns, without its default features: put the code \
             that needs a feature behind `#[cfg(feature = \"...\")]`"
        )],
    }
}

/// The full part: `Err` when cargo-hack is absent.
pub(crate) fn check_powerset(ws: &Workspace) -> Result<Vec<String>, String> {
    if !HACK.present(&ws.root) {
        return Err(HACK.absent());
    }
    let mut c = super::tools::cargo(&ws.root);
    c.args(["hack", "clippy", "--feature-powerset", "--lib", "--locked"]);
    for p in ws.libraries() {
        c.args(["-p", &p.name]);
    }
    c.args(["--", "-D", "warnings"]);
    Ok(
        match util::run(&mut c, "cargo hack clippy --feature-powerset") {
            Ok(()) => Vec::new(),
            Err(e) => vec![format!(
                "{e}: a feature combination above does not build or warns: gate the code on \
                 the features it needs"
            )],
        },
    )
}
