//! Names the build for `--version`: the git commit the tools were built from (`PL_GIT_COMMIT`,
//! "unknown" outside a git checkout or without git) and the target with its compile-time CPU
//! features (`PL_TARGET`).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]);
    // Rebuilt when HEAD moves (a commit, a checkout) or the branch it names does.
    if commit.is_some() {
        for path in [
            Some("HEAD".to_owned()),
            git(&["symbolic-ref", "-q", "HEAD"]),
        ]
        .into_iter()
        .flatten()
        .chain(["packed-refs".to_owned()])
        {
            // Only files that exist: cargo reruns a script whose watched file is missing on
            // every build (a ref lives in packed-refs or in its own file, not in both).
            match git(&["rev-parse", "--git-path", &path]) {
                Some(p) if std::path::Path::new(&p).exists() => {
                    println!("cargo:rerun-if-changed={p}");
                }
                _ => {}
            }
        }
    }
    let commit = commit.unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=PL_GIT_COMMIT={commit}");
    let target = std::env::var("TARGET").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    println!("cargo:rustc-env=PL_TARGET={target} ({features})");
    println!("cargo:rerun-if-changed=build.rs");
}
