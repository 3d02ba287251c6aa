//! The packaged facade used as a downstream crate uses it: the `.crate`
//! files of the packaging check unpacked, a scratch crate outside the
//! workspace that depends on `mcpio` by path to its unpacked package (each
//! sibling patched to its own unpacked package, since none is on crates.io
//! before the first release), built, and run: it calls the `add` tool of the
//! demo server (`mcp serve-demo`) and must print the sum. Full check only.

use std::path::{Path, PathBuf};

use super::workspace::Workspace;
use crate::util;

/// The scratch program: the facade's front-page call, with the server's
/// command line taken from its arguments.
const MAIN: &str = r#"use mcpio::{Client, ClientOptions, RequestOptions, StdioConfig, StdioTransport};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut argv = std::env::args().skip(1);
    let program = argv.next().ok_or("usage: downstream-mcpio PROGRAM [ARG]...")?;
    let server = StdioConfig::new(program).with_args(argv.collect::<Vec<_>>());
    let transport = StdioTransport::spawn(server).await?;
    let client = Client::connect(transport, ClientOptions::new("downstream", "0.0.0")).await?;
    let args = serde_json::json!({"a": 2, "b": 3});
    let result = client.call_tool("add", args, RequestOptions::default()).await?;
    client.close().await?;
    println!("{}", result.text());
    Ok(())
}
"#;

/// Builds and runs the scratch crate; `Err` says what failed and the fix.
pub(crate) fn check(ws: &Workspace) -> Result<(), String> {
    let target = super::package::target_dir(&ws.root);
    let dir = target.join("release-check/downstream");
    let _ = std::fs::remove_dir_all(&dir);
    let unpacked = dir.join("unpacked");
    std::fs::create_dir_all(&unpacked).map_err(|e| format!("{}: {e}", unpacked.display()))?;
    let mut packages = Vec::new();
    for p in ws.published() {
        let file = target
            .join("package")
            .join(format!("{}-{}.crate", p.name, p.version()));
        util::run(
            util::cmd("tar", &unpacked).arg("-xzf").arg(&file),
            &format!("unpack {}", file.display()),
        )?;
        packages.push((
            p.name.clone(),
            unpacked.join(format!("{}-{}", p.name, p.version())),
        ));
    }
    let app = dir.join("app");
    write_app(&app, &packages)?;
    // The versions the workspace is tested with.
    std::fs::copy(ws.root.join("Cargo.lock"), app.join("Cargo.lock"))
        .map_err(|e| format!("copy Cargo.lock to {}: {e}", app.display()))?;
    let app_target = target.join("release-check/downstream-target");
    build_app(&app, &app_target)?;
    util::run(
        util::cargo(&ws.root).args(["build", "--quiet", "-p", "mcpio-cli", "--bin", "mcp"]),
        "cargo build -p mcpio-cli --bin mcp (the demo server)",
    )?;
    let mcp = target.join("debug/mcp");
    let exe = app_target.join("debug/downstream-mcpio");
    eprintln!("==> {} {} serve-demo", exe.display(), mcp.display());
    let out = util::cmd(&exe.to_string_lossy(), &app)
        .arg(&mcp)
        .arg("serve-demo")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || stdout.trim() != "5" {
        return Err(format!(
            "the downstream crate built on the packaged mcpio did not print 5 for add(2, 3) \
             against `mcp serve-demo` ({}; stdout {:?}; stderr {:?}): run {} {} serve-demo and \
             fix what it reports",
            out.status,
            stdout.trim(),
            String::from_utf8_lossy(&out.stderr).trim(),
            exe.display(),
            mcp.display()
        ));
    }
    eprintln!("xtask: the packaged mcpio built downstream and called add(2, 3) = 5");
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// The scratch crate's manifest: `mcpio` by path, stdio only, every other
/// package of ours patched to its unpacked package.
fn manifest(packages: &[(String, PathBuf)]) -> String {
    let path_of = |name: &str| {
        packages
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.display().to_string())
    };
    let mut m = String::from(
        "# Written by cargo xtask release-check: a downstream crate of the packaged mcpio.\n\
         [package]\nname = \"downstream-mcpio\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\n\n[dependencies]\n",
    );
    m.push_str(&format!(
        "mcpio = {{ path = {:?}, default-features = false, features = [\"stdio\"] }}\n",
        path_of("mcpio").unwrap_or_default()
    ));
    m.push_str(
        "tokio = { version = \"1\", features = [\"macros\", \"rt-multi-thread\"] }\n\
         serde_json = \"1\"\n\n[patch.crates-io]\n",
    );
    for (name, path) in packages {
        if name != "mcpio" {
            m.push_str(&format!(
                "{name} = {{ path = {:?} }}\n",
                path.display().to_string()
            ));
        }
    }
    m.push_str("\n[workspace]\n");
    m
}

/// Builds the scratch crate at `app` into `app_target`; `Err` names the fix.
fn build_app(app: &Path, app_target: &Path) -> Result<(), String> {
    let build = |offline: bool| {
        let mut c = util::cargo(app);
        c.args(["build", "--quiet"])
            .env("CARGO_TARGET_DIR", app_target);
        if offline {
            c.arg("--offline");
        }
        c
    };
    let what = "cargo build of a scratch crate depending on the packaged mcpio";
    if util::run(&mut build(true), what).is_ok() {
        return Ok(());
    }
    util::run(&mut build(false), what).map_err(|e| {
        format!(
            "{e}: the packaged facade does not build for a downstream crate (cargo's error \
             above names the item or dependency; the scratch crate is {}). Fix the facade's \
             re-exports or features so a `default-features = false, features = [\"stdio\"]` \
             user builds",
            app.display()
        )
    })
}

fn write_app(app: &Path, packages: &[(String, PathBuf)]) -> Result<(), String> {
    let src = app.join("src");
    std::fs::create_dir_all(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    let write = |path: PathBuf, text: &str| {
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write(app.join("Cargo.toml"), &manifest(packages))?;
    write(src.join("main.rs"), MAIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scratch_manifest_patches_every_sibling_to_its_package() {
        let packages = vec![
            (
                "mcpio-types".to_string(),
                PathBuf::from("/u/mcpio-types-0.1.0"),
            ),
            ("mcpio".to_string(), PathBuf::from("/u/mcpio-0.1.0")),
        ];
        let m = manifest(&packages);
        assert!(
            m.contains(
                "mcpio = { path = \"/u/mcpio-0.1.0\", default-features = false, features = [\"stdio\"] }"
            ),
            "{m}"
        );
        assert!(
            m.contains("[patch.crates-io]\nmcpio-types = { path = \"/u/mcpio-types-0.1.0\" }\n"),
            "{m}"
        );
        assert!(!m.contains("mcpio = { path = \"/u/mcpio-0.1.0\" }"), "{m}");
    }

    /// Breaking the check on purpose: a packaged facade that does not
    /// build for a downstream crate (here a stand-in `mcpio` that stops
    /// the compiler at once, so the test builds little) fails the check,
    /// naming the fix.
    #[test]
    fn a_facade_that_does_not_build_fails_downstream() {
        let dir = super::super::scratch::Scratch::new("downstream");
        dir.write(
            "unpacked/mcpio-0.1.0/Cargo.toml",
            "[package]\nname = \"mcpio\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\
             [features]\ndefault = []\nstdio = []\n",
        );
        dir.write(
            "unpacked/mcpio-0.1.0/src/lib.rs",
            "compile_error!(\"a facade that does not build\");\n",
        );
        let packages = vec![("mcpio".to_string(), dir.path().join("unpacked/mcpio-0.1.0"))];
        let app = dir.path().join("app");
        write_app(&app, &packages).unwrap();
        // The stand-in has no dependencies; tokio and serde_json come from
        // the registry cache the workspace's own builds filled.
        std::fs::copy(
            crate::util::workspace_root().unwrap().join("Cargo.lock"),
            app.join("Cargo.lock"),
        )
        .unwrap();
        let e = build_app(&app, &dir.path().join("target")).unwrap_err();
        assert!(
            e.contains("the packaged facade does not build for a downstream crate"),
            "{e}"
        );
        assert!(e.contains("Fix the facade's re-exports or features"), "{e}");
    }
}
