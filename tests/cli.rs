//! CLI manners (issue 17): --version, --help's layout and the flags the docs name, binary
//! streams and terminals, and `make install`: the tools, man pages, completions and the
//! pl-dedupe command in a PREFIX, working as docs/USAGE.md says.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::util::*;

/// The fifteen tools, as the library lists them (each must have its binary: `bin` panics on
/// an unknown name).
const TOOLS: [&str; 15] = pl_cli::common::TOOLS;

/// The tools that work on several threads, and so take --threads.
const THREADED: [&str; 6] = [
    "pl-normalize",
    "pl-shingle",
    "pl-minhash",
    "pl-lsh",
    "pl-score",
    "pl-trigram",
];

/// A tool's `--help`: its sections (heading → long flags, in order).
fn help_sections(tool: &str) -> Vec<(String, Vec<String>)> {
    let text = String::from_utf8(ok(run(tool, &["--help"], b""))).unwrap();
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        if !line.starts_with(' ') && line.ends_with(':') && !line.contains("  ") {
            sections.push((line.trim_end_matches(':').to_owned(), Vec::new()));
            continue;
        }
        // A flag line: "  -o, --output <FILE>" or "      --threads <N>".
        let t = line.trim_start();
        let indent = line.len() - t.len();
        if (2..=6).contains(&indent) && t.starts_with('-') {
            let flag = t
                .split([' ', ','])
                .find(|w| w.starts_with("--"))
                .map(str::to_owned);
            if let (Some(f), Some(s)) = (flag, sections.last_mut()) {
                s.1.push(f);
            }
        }
    }
    sections
}

/// Every long flag of every tool, and of pl-dedupe, from `--help`.
fn flags_by_tool() -> BTreeMap<&'static str, BTreeSet<String>> {
    TOOLS
        .iter()
        .chain(&["pl-dedupe"])
        .map(|&t| {
            let flags = help_sections(t).into_iter().flat_map(|(_, f)| f).collect();
            (t, flags)
        })
        .collect()
}

#[test]
fn version_names_the_commit_and_the_minhash_kernel() {
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(repo())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_owned());
    for tool in TOOLS {
        let long = String::from_utf8(ok(run(tool, &["--version"], b""))).unwrap();
        let first = long.lines().next().unwrap();
        assert!(first.starts_with(&format!("{tool} 0.")), "{long}");
        let commit = first
            .split("(commit ")
            .nth(1)
            .and_then(|r| r.strip_suffix(')'))
            .unwrap_or_else(|| panic!("no commit: {long}"));
        if let Some(h) = &head {
            assert_eq!(commit, h, "{tool} was built from another commit than HEAD");
        } else {
            assert!(commit == "unknown" || commit.len() == 12, "{long}");
        }
        assert!(long.contains("built for "), "{long}");
        let kernel = long
            .lines()
            .find_map(|l| l.strip_prefix("minhash kernel: "))
            .unwrap_or_else(|| panic!("no kernel: {long}"));
        assert!(
            kernel.starts_with("avx2 ") || kernel.starts_with("generic "),
            "{long}"
        );
        // -V is the short form: the version and the commit only.
        let short = String::from_utf8(ok(run(tool, &["-V"], b""))).unwrap();
        assert_eq!(short.trim_end(), first, "{tool} -V");
    }
}

#[test]
fn help_lists_a_tools_own_options_first_then_the_common_ones() {
    for tool in TOOLS {
        let sections = help_sections(tool);
        let names: Vec<&str> = sections.iter().map(|(h, _)| h.as_str()).collect();
        let at = |h: &str| names.iter().position(|n| *n == h);
        let common = at("Common options").unwrap_or_else(|| panic!("{tool}: {names:?}"));
        let own = at("Options").unwrap_or_else(|| panic!("{tool}: {names:?}"));
        assert!(own < common, "{tool}: own options come first: {names:?}");
        let flags = |h: &str| &sections[at(h).unwrap()].1;
        for f in ["--output", "--quiet", "--verbose", "--generate"] {
            assert!(
                flags("Common options").iter().any(|x| x == f),
                "{tool}: {f}"
            );
            assert!(!flags("Options").iter().any(|x| x == f), "{tool}: {f}");
        }
        let has = |f: &str| sections.iter().any(|(_, fs)| fs.iter().any(|x| x == f));
        assert_eq!(
            has("--threads"),
            THREADED.contains(&tool),
            "{tool}: --threads only where the tool uses threads"
        );
        if has("--threads") {
            assert!(flags("Common options").iter().any(|x| x == "--threads"));
        }
        let server = at("Server options");
        assert_eq!(
            server.is_some(),
            matches!(
                tool,
                "pl-fetch" | "pl-apply" | "pl-check" | "pl-watch" | "pl-report"
            )
        );
        if let Some(s) = server {
            assert!(own < s && s < common, "{tool}: {names:?}");
        }
    }
    // One declaration of the server flags: pl-fetch and pl-apply list the same ones.
    let server = |t: &str| {
        help_sections(t)
            .into_iter()
            .find(|(h, _)| h == "Server options")
            .unwrap()
            .1
    };
    let fetch = server("pl-fetch");
    assert_eq!(fetch, server("pl-apply"));
    for f in [
        "--url",
        "--token-file",
        "--connect-timeout",
        "--timeout",
        "--deadline",
        "--max-answer-mb",
        "--retries",
        "--backoff",
        "--max-retry-after",
        "--ca-cert",
    ] {
        assert!(fetch.iter().any(|x| x == f), "{f}");
    }
}

#[test]
fn long_help_ends_with_the_exit_codes() {
    for tool in TOOLS {
        let text = String::from_utf8(ok(run(tool, &["--help"], b""))).unwrap();
        let last = text.trim_end().lines().last().unwrap();
        assert!(
            last.starts_with("Exit status: 0 success") && last.contains("1 bad input"),
            "{tool}: {last}"
        );
        assert_eq!(
            last.contains("3 done"),
            tool == "pl-apply",
            "{tool}: {last}"
        );
        assert_eq!(
            last.contains("3 some document has a near-duplicate"),
            tool == "pl-check",
            "{tool}: {last}"
        );
    }
}

/// The code of a markdown file: fenced blocks and inline spans, each a string.
fn code_of(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            match fence.take() {
                Some(block) => out.push(block),
                None => fence = Some(String::new()),
            }
            continue;
        }
        if let Some(block) = fence.as_mut() {
            block.push_str(line);
            block.push('\n');
            continue;
        }
        // Inline spans: between pairs of backticks.
        out.extend(line.split('`').skip(1).step_by(2).map(str::to_owned));
    }
    out
}

/// The commands in a piece of code: (program, its long flags), split at pipes, `;`, `&&`,
/// newlines (a trailing backslash continues the line) and parentheses.
fn commands(code: &str) -> Vec<(String, Vec<String>)> {
    let code = code.replace("\\\n", " ");
    let mut out = Vec::new();
    for line in code.lines() {
        let line = line.split(" # ").next().unwrap_or("");
        for cmd in line.split(['|', ';', '&', '(', ')', '→']) {
            let mut words = cmd
                .split_whitespace()
                .skip_while(|w| w.contains('=') && !w.starts_with('-'));
            let Some(program) = words.next() else {
                continue;
            };
            let flags = words
                .filter(|w| w.starts_with("--") && w.len() > 2)
                .map(|w| {
                    w.split(['=', ',', '.', ':'])
                        .next()
                        .unwrap()
                        .trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                        .to_owned()
                })
                .collect();
            out.push((program.to_owned(), flags));
        }
    }
    out
}

#[test]
fn every_flag_the_readme_and_docs_name_exists() {
    let flags = flags_by_tool();
    let any: BTreeSet<&String> = flags.values().flatten().collect();
    // Flags of programs that are not pl-* tools, named in the docs without their program.
    let others = [
        "--dup-rate",
        "--max-noise",
        "--near-negatives",
        "--out-docs",
        "--out-truth",
        "--docs",
        "--seed",
        "--release",
        // pl-spark's (scripts/spark, docs/SCALE.md).
        "--big-bucket",
        "--master",
        "--partitions",
        "--set",
        "--publish-wait",
    ];
    let mut files = vec![repo().join("README.md")];
    for e in std::fs::read_dir(repo().join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p);
        }
    }
    let mut checked = 0;
    let mut wrong = Vec::new();
    for f in &files {
        let md = std::fs::read_to_string(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        for code in code_of(&md) {
            for (program, named) in commands(&code) {
                for flag in named {
                    let known = match flags.get(program.as_str()) {
                        // pl-dedupe apply passes pl-apply's flags on.
                        Some(own) if program == "pl-dedupe" => {
                            own.contains(&flag) || flags["pl-apply"].contains(&flag)
                        }
                        Some(own) => own.contains(&flag),
                        None if program.starts_with("--") || program.starts_with("pl-") => {
                            any.contains(&flag) || others.contains(&flag.as_str())
                        }
                        None => true,
                    };
                    checked += 1;
                    if !known {
                        wrong.push(format!("{name}: {program} {flag}"));
                    }
                }
                // A span that is only a flag (`--linkage single`): some tool must have it.
                if program.starts_with("--") {
                    let flag = program.split('=').next().unwrap().to_owned();
                    if !any.contains(&flag) && !others.contains(&flag.as_str()) {
                        wrong.push(format!("{name}: {flag} (no tool has it)"));
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(
        checked > 200,
        "only {checked} flags found: is the parser broken?"
    );
    assert!(
        wrong.is_empty(),
        "flags the tools do not have:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_flag_a_tools_help_names_exists() {
    let flags = flags_by_tool();
    let any: BTreeSet<&String> = flags.values().flatten().collect();
    for tool in TOOLS {
        let text = String::from_utf8(ok(run(tool, &["--help"], b""))).unwrap();
        for w in text.split(|c: char| c.is_whitespace() || "()[],;`'\"".contains(c)) {
            if let Some(rest) = w.strip_prefix("--") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect();
                let flag = format!("--{}", name.trim_end_matches('-'));
                if name.is_empty() {
                    continue;
                }
                assert!(
                    flags[tool].contains(&flag) || any.contains(&flag),
                    "{tool} --help names {flag}, which no tool has"
                );
            }
        }
    }
}

/// Runs `tool args` in `dir` under python3 running `script` (which puts a stream on a
/// pseudo-terminal, python3's pty module, and passes the rest through): its output.
fn under_python(script: &str, tool: &str, args: &[&str], dir: &Path) -> std::process::Output {
    under_python_with(script, tool, args, dir, &[])
}

/// [`under_python`] with `env` set for the tool.
fn under_python_with(
    script: &str,
    tool: &str,
    args: &[&str],
    dir: &Path,
    env: &[(&str, &str)],
) -> std::process::Output {
    Command::new("python3")
        .envs(env.iter().copied())
        .arg("-c")
        .arg(script)
        .arg(bin(tool))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("python3 runs")
}

/// Runs `tool args` with its stdout on a pseudo-terminal and stdin empty; returns (exit
/// code, stderr).
fn on_a_terminal(tool: &str, args: &[&str], dir: &Path) -> (i32, String) {
    let script = "import pty, subprocess, sys\n\
                  m, s = pty.openpty()\n\
                  r = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=s, stderr=subprocess.PIPE)\n\
                  sys.stderr.buffer.write(r.stderr)\n\
                  sys.exit(r.returncode)\n";
    let out = under_python(script, tool, args, dir);
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn a_binary_stream_is_not_written_to_a_terminal() {
    let d = tempfile::tempdir().unwrap();
    for tool in ["pl-shingle", "pl-minhash"] {
        let (code, err) = on_a_terminal(tool, &[], d.path());
        assert_eq!(code, 2, "{tool}: {err}");
        assert_eq!(
            err.trim_end(),
            format!(
                "{tool}: refusing to write a binary stream to a terminal; use -o FILE or a pipe \
                 (or --format json for NDJSON)"
            )
        );
        // To a file, or as NDJSON, the terminal is fine.
        let (code, err) = on_a_terminal(tool, &["-o", "out.bin"], d.path());
        assert_eq!(code, 0, "{tool}: {err}");
        assert!(d.path().join("out.bin").exists());
        let (code, err) = on_a_terminal(tool, &["--format", "json"], d.path());
        assert_eq!(code, 0, "{tool}: {err}");
    }
    // Text tools write to a terminal as before.
    let (code, err) = on_a_terminal("pl-normalize", &[], d.path());
    assert_eq!(code, 0, "{err}");
}

#[test]
fn pl_cat_table_refuses_a_binary_stream() {
    let norm = ok(run("pl-normalize", &[], small_corpus(10).as_bytes()));
    let sigs = ok(run("pl-minhash", &[], &norm));
    fails(
        run("pl-cat", &["--table"], &sigs),
        1,
        "pl-cat",
        &["<stdin>: a binary signature stream, not groups", "--table"],
    );
    let shingles = ok(run("pl-shingle", &[], &norm));
    fails(
        run("pl-cat", &["--table"], &shingles),
        1,
        "pl-cat",
        &["a binary shingle stream"],
    );
}

#[test]
fn pl_cat_table_shows_the_control_characters_of_titles_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs.ndjson");
    let titles = [
        "\x1b]0;owned\x07retitled",
        "\x1b[2Jcleared\r  #9  confidence 1.000  forged",
        "invoice\u{202e}fdp.exe\u{9b}31m\u{7f}",
    ];
    let lines: String = titles
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let created = if i == 0 { "2024\n-01-01" } else { "2024-01-01" };
            format!(
                "{}\n",
                serde_json::json!({"id": i + 1, "title": t, "content": "x", "created": created})
            )
        })
        .collect();
    std::fs::write(&docs, lines).unwrap();
    let groups = r#"{"group":1,"confidence":0.9,"primary":1,"members":[1,2,3]}"#;
    let out = ok(run(
        "pl-cat",
        &["--table", "--docs", docs.to_str().unwrap()],
        groups.as_bytes(),
    ));
    let table = String::from_utf8(out).unwrap();
    assert!(
        !table
            .chars()
            .any(|c| c != '\n' && pl_core::terminal::acts_on_terminal(c)),
        "{table:?}"
    );
    assert_eq!(table.lines().count(), 5, "one line per member: {table}");
    for shown in [
        "\\x1b]0;owned\\x07retitled",
        "\\x1b[2Jcleared\\x0d  #9  confidence 1.000  forged",
        "invoice\\u{202e}fdp.exe\\u{009b}31m\\x7f",
        "2024\\x0a-01",
    ] {
        assert!(table.contains(shown), "{shown} in {table}");
    }
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out
}

#[test]
fn make_install_puts_tools_man_pages_and_completions_in_prefix_and_uninstall_removes_them() {
    let d = tempfile::tempdir().unwrap();
    let prefix = d.path().join("prefix");
    std::fs::create_dir_all(&prefix).unwrap();
    ok(make_install("install", &prefix, None));
    let files = files_under(&prefix);
    for t in TOOLS.iter().chain(&["pl-dedupe"]) {
        for f in [
            format!("bin/{t}"),
            format!("share/man/man1/{t}.1"),
            format!("share/bash-completion/completions/{t}"),
            format!("share/zsh/site-functions/_{t}"),
            format!("share/fish/vendor_completions.d/{t}.fish"),
        ] {
            assert!(files.contains(&f), "{f} not installed: {files:?}");
        }
    }
    assert!(files.contains("share/paperless-dedupe/pipeline.mk"));
    // The fifteen tools and pl-dedupe, five files each; the pipeline's four; the hook's two.
    assert_eq!(files.len(), (TOOLS.len() + 1) * 5 + 4 + 2, "{files:?}");

    // The consume hook and its settings' template: copied to hook.env beside the hook, the
    // installed hook finds the installed pl-check (PL_BIN is filled in) and asks it.
    let hook_dir = prefix.join("share/paperless-dedupe/hook");
    let template = std::fs::read_to_string(hook_dir.join("hook.env.example")).unwrap();
    let bin = prefix.join("bin");
    assert!(
        template.contains(&format!("PL_BIN={}\n", bin.display())),
        "{template}"
    );
    let env = template.replace(
        "#PL_INDEX=/dedupe/index",
        &format!("PL_INDEX={}", d.path().join("no-index").display()),
    );
    std::fs::write(hook_dir.join("hook.env"), env).unwrap();
    let out = Command::new(hook_dir.join("paperless-consume-hook.sh"))
        .env("DOCUMENT_ID", "7")
        .env("PAPERLESS_TOKEN", "t")
        .env("PAPERLESS_URL", "http://127.0.0.1:9")
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("document 7:") && !log.contains("not found") && !log.contains("not set"),
        "the hook reached pl-check: {log}"
    );
    std::fs::remove_file(hook_dir.join("hook.env")).unwrap();

    // The installed tools run, and name their build.
    let out = with_installed(&prefix, d.path(), "pl-apply --version");
    assert!(String::from_utf8(ok(out))
        .unwrap()
        .starts_with("pl-apply 0."));

    // man finds the page in the prefix (man-db: .ci/run installs it).
    let man = |tool: &str| {
        let out = Command::new("man")
            .args(["-M", &prefix.join("share/man").display().to_string(), tool])
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env("MANWIDTH", "100")
            .output()
            .expect("man runs (apt-get install man-db)");
        String::from_utf8_lossy(&ok(out)).to_string()
    };
    let page = man("pl-score");
    for needle in [
        "pl-score",
        "--threshold",
        "COMMON OPTIONS",
        "EXIT STATUS",
        "pl-cluster(1)",
    ] {
        assert!(
            page.contains(needle),
            "{needle} not in the man page:\n{page}"
        );
    }
    // pl-dedupe's too (issue 60: `man pl-dedupe` had no page).
    let page = man("pl-dedupe");
    for needle in [
        "pl-dedupe",
        "COMMANDS",
        "why A B",
        "--threshold",
        "EXIT STATUS",
    ] {
        assert!(page.contains(needle), "{needle} not in:\n{page}");
    }

    // The bash completion offers pl-score's flags, and pl-cluster's --linkage values.
    let complete = |tool: &str, words: &str| {
        let script = format!(
            "source {dir}/{tool}\n\
             fn=$(complete -p {tool} | sed -n 's/.*-F \\([^ ]*\\).*/\\1/p')\n\
             COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))\n\
             \"$fn\" {tool} \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            dir = prefix.join("share/bash-completion/completions").display(),
        );
        let out = Command::new("bash").arg("-c").arg(script).output().unwrap();
        String::from_utf8(ok(out)).unwrap()
    };
    let offered = complete("pl-score", "pl-score --thresh");
    assert_eq!(offered.trim(), "--threshold", "{offered}");
    let offered = complete("pl-dedupe", "pl-dedupe re");
    assert_eq!(offered.trim(), "report", "{offered}");
    let offered = complete("pl-dedupe", "pl-dedupe --thresh");
    assert_eq!(offered.trim(), "--threshold", "{offered}");
    let offered = complete("pl-cluster", "pl-cluster --linkage ''");
    assert_eq!(
        offered.split_whitespace().collect::<BTreeSet<_>>(),
        BTreeSet::from(["average", "single"])
    );
    // zsh and fish: their files name the tool's flags (and parse, where the shell is here).
    let zsh = std::fs::read_to_string(prefix.join("share/zsh/site-functions/_pl-score")).unwrap();
    assert!(zsh.starts_with("#compdef pl-score") && zsh.contains("--threshold"));
    let fish =
        std::fs::read_to_string(prefix.join("share/fish/vendor_completions.d/pl-score.fish"))
            .unwrap();
    assert!(fish.contains("complete -c pl-score") && fish.contains("-l threshold"));
    // Where zsh and fish are here: they find the files where make install put them (fish
    // under XDG_DATA_HOME, as for ~/.local; zsh in an fpath entry) and offer the flag.
    let share = prefix.join("share");
    let shells = [
        (
            "zsh",
            format!(
                "fpath=({}/zsh/site-functions $fpath); autoload -U compinit; compinit -u -d {}/zcomp; \
                 print -r -- $_comps[pl-score]",
                share.display(),
                d.path().display()
            ),
            "_pl-score",
        ),
        ("fish", "complete -C 'pl-score --thresh'".to_owned(), "--threshold\t"),
    ];
    for (shell, script, want) in shells {
        match Command::new(shell)
            .arg("-c")
            .arg(&script)
            .env("HOME", d.path())
            .env("XDG_DATA_HOME", &share)
            .env("PATH", format!("{}/bin:/usr/bin:/bin", prefix.display()))
            .output()
        {
            Ok(out) => {
                let got = String::from_utf8(ok(out)).unwrap();
                assert!(got.starts_with(want), "{shell}: {got}");
            }
            Err(_) => eprintln!("{shell} is not installed: its completion file was read, not run"),
        }
    }

    // Uninstall removes exactly what install put there.
    std::fs::write(prefix.join("bin/mine"), "a file of the user's").unwrap();
    ok(make_install("uninstall", &prefix, None));
    assert_eq!(
        files_under(&prefix),
        BTreeSet::from(["bin/mine".to_owned()])
    );
    assert!(!prefix.join("share/paperless-dedupe").exists());

    // DESTDIR stages an install for a package: the files land under it.
    let stage = d.path().join("stage");
    ok(make_install(
        "install",
        Path::new("/usr/local"),
        Some(&stage),
    ));
    assert!(stage.join("usr/local/bin/pl-score").exists());
    assert!(stage.join("usr/local/share/man/man1/pl-score.1").exists());
    ok(make_install(
        "uninstall",
        Path::new("/usr/local"),
        Some(&stage),
    ));
    assert!(files_under(&stage).is_empty());
}

#[test]
fn after_make_install_pl_dedupe_runs_in_any_folder() {
    let d = tempfile::tempdir().unwrap();
    let prefix = d.path().join("prefix");
    ok(make_install("install", &prefix, None));
    // A folder of the user's: the example corpus as docs.ndjson, and examples/ beside it.
    let home = d.path().join("home");
    user_home(&home);

    // pl-dedupe: the pipeline in any folder, without the clone.
    let out = with_installed(&prefix, &home, "pl-dedupe");
    let table = String::from_utf8(ok(out)).unwrap();
    let last = table.trim_end().lines().last().unwrap();
    assert!(last.ends_with(" groups") && last != "0 groups", "{table}");
    let expected = ok(run(
        "pl-cat",
        &[
            "--table",
            "--docs",
            &home.join("work/docs.ndjson").display().to_string(),
            &home.join("work/groups.ndjson").display().to_string(),
        ],
        b"",
    ));
    assert_eq!(table, String::from_utf8(expected).unwrap());
    // Its flags, and the older VARIABLE=VALUE form, give the same evaluation.
    let out = with_installed(&prefix, &home, "pl-dedupe eval --threshold 0.7");
    let eval = String::from_utf8(ok(out)).unwrap();
    assert!(eval.starts_with("pairs   precision"), "{eval}");
    let out = with_installed(&prefix, &home, "pl-dedupe eval THRESHOLD=0.7");
    assert_eq!(String::from_utf8(ok(out)).unwrap(), eval);
    let out = with_installed(&prefix, &home, "pl-dedupe --help");
    assert!(String::from_utf8(ok(out))
        .unwrap()
        .contains("Usage: pl-dedupe [OPTIONS] [COMMAND]"));

    // A folder that holds a fetched library is not overwritten by another source; the
    // refusal names the command the user ran.
    std::fs::write(
        home.join("work/docs.source"),
        "paperless http://127.0.0.1:9\n",
    )
    .unwrap();
    std::fs::remove_file(home.join("work/docs.params")).unwrap();
    let out = with_installed(&prefix, &home, "pl-dedupe");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{err}");
    // ... in its own words: its flags, not make's variables.
    assert!(
        err.starts_with("pl-dedupe: ")
            && err.contains("run 'pl-dedupe clean' (or use --work another folder)")
            && err.contains("or --switch-source to replace them"),
        "{err}"
    );
    // --switch-source replaces them, and the folder forgets the library.
    let out = with_installed(&prefix, &home, "pl-dedupe groups --switch-source");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    assert!(err.contains("(--switch-source)"), "{err}");
    assert!(!home.join("work/docs.source").exists());
}

/// Every variable pipeline.mk lets a user set is a flag of pl-dedupe (so its man page and
/// completions offer it), and the default its help states is pipeline.mk's (BIN, SCRIPTS and
/// EXAMPLES are where the command finds itself, set by pl-dedupe, not by its user).
#[test]
fn every_pipeline_variable_is_a_pl_dedupe_flag_with_pipeline_mk_s_default() {
    let mk = std::fs::read_to_string(repo().join("pipeline.mk")).unwrap();
    let vars: Vec<(&str, &str)> = mk
        .lines()
        .filter_map(|l| l.split_once("?=").map(|(name, v)| (name.trim(), v.trim())))
        .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .filter(|(n, _)| !["BIN", "SCRIPTS", "EXAMPLES"].contains(n))
        .collect();
    assert!(
        vars.iter().any(|(n, _)| *n == "MAX_BUCKET") && vars.len() > 15,
        "{vars:?}"
    );
    let help = String::from_utf8(ok(run("pl-dedupe", &["--help"], b""))).unwrap();
    // "      --threshold <X>" then its help, to the next flag.
    let flag_help = |flag: &str| -> String {
        let (_, rest) = help
            .split_once(&format!("      {flag} "))
            .or_else(|| help.split_once(&format!("      {flag}\n")))
            .unwrap_or_else(|| panic!("pl-dedupe has no {flag}:\n{help}"));
        rest.split("\n      --").next().unwrap().to_owned()
    };
    for (var, default) in vars {
        let flag = format!("--{}", var.to_ascii_lowercase().replace('_', "-"));
        let text = flag_help(&flag);
        if !default.is_empty() && !default.contains('$') {
            assert!(
                text.contains(&format!("[default: {default}]")),
                "{flag}: pipeline.mk's default {default} is not in {text:?}"
            );
        }
    }
}

/// Runs `tool args` in `dir` with its stderr on a pseudo-terminal (python3's pty module);
/// returns (exit code, what it wrote there).
fn stderr_on_a_terminal(tool: &str, args: &[&str], dir: &Path) -> (i32, String) {
    stderr_on_a_terminal_with(tool, args, dir, &[])
}

/// [`stderr_on_a_terminal`] with `env` set for the tool.
pub(crate) fn stderr_on_a_terminal_with(
    tool: &str,
    args: &[&str],
    dir: &Path,
    env: &[(&str, &str)],
) -> (i32, String) {
    let script = "import os, pty, subprocess, sys\n\
                  m, s = pty.openpty()\n\
                  p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=s)\n\
                  os.close(s)\n\
                  out = b''\n\
                  while True:\n\
                  \x20   try:\n\
                  \x20       b = os.read(m, 4096)\n\
                  \x20   except OSError:\n\
                  \x20       break\n\
                  \x20   if not b:\n\
                  \x20       break\n\
                  \x20   out += b\n\
                  sys.stdout.buffer.write(out)\n\
                  sys.exit(p.wait())\n";
    let out = under_python_with(script, tool, args, dir, env);
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).to_string(),
    )
}

/// The lines a terminal shows at the end of `shown`: what stays of each line once carriage
/// returns and erase-line sequences have drawn over it (a bar cleared leaves nothing).
pub(crate) fn visible_lines(shown: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for line in shown.split('\n') {
        let line = line.trim_end_matches('\r');
        let last = line.rsplit('\r').next().unwrap_or("");
        // CSI sequences (ESC [ parameters final byte): cursor, erase line.
        let mut text = String::new();
        let mut chars = last.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                if chars.next() == Some('[') {
                    for f in chars.by_ref() {
                        if ('@'..='~').contains(&f) {
                            break;
                        }
                    }
                }
                continue;
            }
            text.push(c);
        }
        if !text.is_empty() {
            lines.push(text);
        }
    }
    lines
}

/// pl-normalize, pl-minhash and pl-index end with one summary line on a pipe (nothing with
/// -q), and on a terminal leave that line alone in place of their progress; an incremental
/// update (pl-index --partial, pl-check --add) shows a bar over the candidates it rescores.
#[test]
fn pl_normalize_pl_minhash_and_pl_index_end_with_one_line_and_show_progress_on_a_terminal() {
    let d = tempfile::tempdir().unwrap();
    let docs = repo().join("examples/docs.ndjson").display().to_string();
    let n = std::fs::read_to_string(&docs).unwrap().lines().count();
    let one_line = |script: &str, starts: &str| -> String {
        let out = sh(d.path(), script);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{script}: {err}");
        assert_eq!(err.lines().count(), 1, "{script}: {err:?}");
        assert!(
            err.starts_with(starts) && err.trim_end().ends_with(" s)"),
            "{script}: {err:?}"
        );
        assert!(!err.contains('\r') && !err.contains('\x1b'), "{err:?}");
        err
    };
    one_line(
        &format!("pl-normalize {docs} -o norm.ndjson"),
        &format!("pl-normalize: {n} documents normalized ("),
    );
    let err = one_line(
        "pl-minhash norm.ndjson -o sigs.bin",
        &format!("pl-minhash: {n} documents signed"),
    );
    assert!(
        err.contains("; 12 documents under 20 words kept as one whole-text shingle"),
        "{err}"
    );
    one_line(
        "pl-shingle -q --min-words 1 norm.ndjson | pl-minhash -o sigs2.bin",
        &format!("pl-minhash: {n} documents signed ("),
    );
    let err = one_line(
        &format!("pl-index --index ix {docs} -o g.ndjson"),
        "pl-index: ix: ",
    );
    assert!(err.contains(" groups (built from scratch) ("), "{err}");
    for quiet in [
        format!("pl-normalize -q {docs} -o q1.ndjson"),
        "pl-minhash -q norm.ndjson -o q2.bin".into(),
        format!("pl-index -q --index ix-q {docs} -o q3.ndjson"),
    ] {
        let out = sh(d.path(), &quiet);
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{quiet}: {out:?}"
        );
    }
    // On a terminal: the progress drawn, then only the summary line left.
    for (tool, args, says) in [
        (
            "pl-normalize",
            vec![docs.as_str(), "-o", "t1.ndjson"],
            " documents normalized (",
        ),
        (
            "pl-minhash",
            vec!["norm.ndjson", "-o", "t2.bin"],
            " documents signed; ",
        ),
    ] {
        let (code, shown) = stderr_on_a_terminal(tool, &args, d.path());
        assert_eq!(code, 0, "{shown}");
        assert!(
            shown.contains(&format!("{tool}: ")) && shown.contains("/s)"),
            "no progress: {shown:?}"
        );
        let lines = visible_lines(&shown);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with(&format!("{tool}: {n}")) && lines[0].contains(says),
            "{lines:?}"
        );
        let (code, shown) = stderr_on_a_terminal(tool, &[&["-q"], &args[..]].concat(), d.path());
        assert_eq!(
            (code, shown.as_str()),
            (0, ""),
            "{tool} -q: nothing on a terminal"
        );
    }
    // The incremental rescoring: three documents changed, their pairs scored again.
    ok(sh(
        d.path(),
        &format!("head -n 3 {docs} | sed 's/\"content\": *\"/&new words /' > more.ndjson"),
    ));
    let (code, shown) = stderr_on_a_terminal(
        "pl-index",
        &[
            "--index",
            "ix",
            "--partial",
            "more.ndjson",
            "-o",
            "g2.ndjson",
        ],
        d.path(),
    );
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.contains(" candidates rescored (") && shown.contains(" left)"),
        "no rescoring bar: {shown:?}"
    );
    let lines = visible_lines(&shown);
    assert!(
        lines.len() == 1 && lines[0].starts_with("pl-index: ix: 0 added, 3 changed"),
        "{lines:?}"
    );
    ok(sh(
        d.path(),
        &format!("head -n 3 {docs} | sed 's/\"content\": *\"/&other words /' > again.ndjson"),
    ));
    let (_, shown) = stderr_on_a_terminal(
        "pl-check",
        &["--index", "ix", "--add", "again.ndjson"],
        d.path(),
    );
    assert!(
        shown.contains(" candidates rescored (") && shown.contains(" left)"),
        "pl-check --add: no rescoring bar: {shown:?}"
    );
}

/// pl-lsh shows its progress on a terminal (the signatures read, then a bar over the
/// candidates written with the time left), pl-cluster a count of the pairs read, and pl-index
/// a bar of the documents it prepares and of the candidates it scores; on a pipe, pl-lsh and
/// pl-cluster only their one summary line; -q silences a terminal too.
#[test]
fn pl_lsh_and_pl_cluster_show_progress_on_a_terminal_only() {
    let d = tempfile::tempdir().unwrap();
    let docs = repo().join("examples/docs.ndjson");
    ok(sh(
        d.path(),
        &format!(
            "pl-normalize -q {} -o norm.ndjson && pl-shingle -q norm.ndjson | pl-minhash -q -o sigs.bin",
            docs.display()
        ),
    ));
    let (code, shown) =
        stderr_on_a_terminal("pl-lsh", &["sigs.bin", "-o", "cands.ndjson"], d.path());
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("pl-lsh: "), "{shown:?}");
    assert!(
        shown.contains("signatures") || shown.contains("signature"),
        "{shown:?}"
    );
    assert!(
        shown.contains(" candidates (") && shown.contains(" left)"),
        "{shown:?}"
    );
    let piped = sh(d.path(), "pl-lsh sigs.bin -o cands2.ndjson");
    let err = String::from_utf8_lossy(&piped.stderr);
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(
        err.starts_with("pl-lsh: ") && !err.contains('\r') && !err.contains('\x1b'),
        "{err:?}"
    );
    ok(sh(
        d.path(),
        "pl-score -q cands.ndjson --sigs sigs.bin --norm norm.ndjson -o scores.ndjson",
    ));
    let (code, shown) =
        stderr_on_a_terminal("pl-cluster", &["scores.ndjson", "-o", "g.ndjson"], d.path());
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.contains("pl-cluster: ") && shown.contains("/s)"),
        "{shown:?}"
    );
    let piped = sh(d.path(), "pl-cluster scores.ndjson -o g2.ndjson");
    let err = String::from_utf8_lossy(&piped.stderr);
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(
        err.starts_with("pl-cluster: ") && !err.contains('\r'),
        "{err:?}"
    );
    // pl-index's bulk build shows a bar over the documents it prepares, then scores with
    // pl-score's bar; an incremental run the bar of the documents it prepares.
    let docs = docs.display().to_string();
    let (code, shown) = stderr_on_a_terminal("pl-index", &["--index", "ix", &docs], d.path());
    assert_eq!(code, 0, "{shown}");
    let n = std::fs::read_to_string(&docs).unwrap().lines().count();
    assert!(
        shown.contains(&format!("/{n} documents prepared (")),
        "{shown:?}"
    );
    assert!(
        shown.contains("pl-index: ") && shown.contains(" candidates ("),
        "{shown:?}"
    );
    assert!(shown.contains(" left)"), "{shown:?}");
    ok(sh(
        d.path(),
        &format!("head -n 3 {docs} | sed 's/\"content\": *\"/&new words /' > more.ndjson"),
    ));
    let (code, shown) = stderr_on_a_terminal(
        "pl-index",
        &["--index", "ix", "--partial", "more.ndjson"],
        d.path(),
    );
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("/3 documents prepared ("), "{shown:?}");
    let (code, shown) =
        stderr_on_a_terminal("pl-index", &["-q", "--index", "ix2", &docs], d.path());
    assert_eq!((code, shown.as_str()), (0, ""), "-q: nothing on a terminal");
}
