//! Check 8: licences and duplicate versions with `cargo deny check licenses
//! bans` and deny.toml. The advisory database (RustSec) is fetched from
//! GitHub, which this machine cannot reach: that part is reported as not
//! checked, never as passed.

use super::tools::DENY;
use super::workspace::Workspace;
use crate::util;

/// What cannot be checked here; printed with the verdict.
pub(crate) const ADVISORIES_NOT_CHECKED: &str = "advisories: `cargo deny check advisories` needs \
     the RustSec advisory database, which cannot be fetched here (only package registries are \
     reachable); run it on a machine that reaches GitHub before publishing";

/// Runs cargo-deny; `Err` when the tool is absent.
pub(crate) fn check(ws: &Workspace) -> Result<Vec<String>, String> {
    if !DENY.present(&ws.root) {
        return Err(DENY.absent());
    }
    let mut c = super::tools::cargo(&ws.root);
    c.args([
        "deny",
        "--all-features",
        "--locked",
        "check",
        "licenses",
        "bans",
    ]);
    Ok(match util::run(&mut c, "cargo deny check licenses bans") {
        Ok(()) => Vec::new(),
        Err(e) => vec![format!(
            "{e}: a licence not allowed in deny.toml, or a duplicate version not explained \
             there (cargo-deny's report above names the crate; allow the licence or add the \
             crate to `skip` with the reason)"
        )],
    })
}
