//! Output files under attack: a link planted at a temporary's name is never followed, the
//! temporaries of killed runs are cleaned up, and a missing output folder is created.

use std::path::Path;

use crate::util::{fails, ndjson, ok, sh, small_corpus, write};

/// A symlink at `link` pointing to `to`.
fn plant(link: &Path, to: &Path) {
    std::os::unix::fs::symlink(to, link).unwrap();
}

#[test]
fn a_link_planted_at_the_temporary_name_is_never_followed() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "docs.ndjson", small_corpus(12).as_bytes());
    std::fs::create_dir(d.path().join("out")).unwrap();
    let victim = write(d.path(), "victim", b"precious\n");
    // `exec` keeps the shell's pid, so the link sits at the very name the tool's pid gives
    // (`.NAME.PID.tmp`, what earlier versions created and followed).
    let script = format!(
        "ln -s {v} out/.norm.ndjson.$$.tmp && exec pl-normalize -q docs.ndjson -o out/norm.ndjson",
        v = victim.display()
    );
    ok(sh(d.path(), &script));
    let script = format!(
        "ln -s {v} out/.groups.ndjson.$$.tmp && exec pl-index -q --index ix docs.ndjson -o out/groups.ndjson",
        v = victim.display()
    );
    ok(sh(d.path(), &script));
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious\n");
    for name in ["norm.ndjson", "groups.ndjson"] {
        let p = d.path().join("out").join(name);
        let meta = std::fs::symlink_metadata(&p).unwrap();
        assert!(meta.file_type().is_file(), "{name} is a plain file");
    }
    assert_eq!(
        ndjson(&std::fs::read(d.path().join("out/norm.ndjson")).unwrap()).len(),
        14
    );
    // The index's own side file (the norm lines of a first build) is made the same way.
    std::fs::create_dir(d.path().join("ix2")).unwrap();
    plant(&d.path().join("ix2/.bulk-norm.ndjson"), &victim);
    ok(sh(
        d.path(),
        "pl-index -q --index ix2 docs.ndjson -o /dev/null",
    ));
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious\n");
    // Nothing of ours is left behind but the planted links.
    let left: Vec<String> = std::fs::read_dir(d.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(
        left.iter()
            .all(|n| std::fs::symlink_metadata(d.path().join("out").join(n))
                .unwrap()
                .file_type()
                .is_symlink()),
        "{left:?}"
    );
}

#[test]
fn stale_temporaries_of_both_namings_are_removed() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "docs.ndjson", small_corpus(5).as_bytes());
    let dead_old = write(d.path(), ".norm.ndjson.999999999.tmp", b"half");
    let dead_new = write(d.path(), ".norm.ndjson.999999999.Ab12Cd.tmp", b"half");
    let live = write(
        d.path(),
        &format!(".norm.ndjson.{}.Xy34Zw.tmp", std::process::id()),
        b"half",
    );
    let other = write(d.path(), ".other.ndjson.999999999.Ab12Cd.tmp", b"half");
    ok(sh(d.path(), "pl-normalize -q docs.ndjson -o norm.ndjson"));
    assert!(!dead_old.exists() && !dead_new.exists());
    assert!(live.exists() && other.exists());
}

#[test]
fn a_missing_output_folder_is_created() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("texts")).unwrap();
    write(d.path(), "texts/a.txt", b"hello world\n");
    write(d.path(), "texts/b.txt", b"another letter\n");
    // pl-fetch's -o (and its state file beside it) in a folder that does not exist yet.
    ok(sh(d.path(), "pl-fetch -q --dir texts -o work/docs.ndjson"));
    let docs = ndjson(&std::fs::read(d.path().join("work/docs.ndjson")).unwrap());
    assert_eq!(docs.len(), 2);
    ok(sh(
        d.path(),
        "pl-normalize -q work/docs.ndjson -o deeper/still/norm.ndjson",
    ));
    assert_eq!(
        ndjson(&std::fs::read(d.path().join("deeper/still/norm.ndjson")).unwrap()).len(),
        2
    );
    // A folder that cannot be made is named.
    write(d.path(), "plain", b"x");
    let out = sh(
        d.path(),
        "pl-normalize -q work/docs.ndjson -o plain/norm.ndjson",
    );
    fails(
        out,
        1,
        "pl-normalize",
        &["plain/norm.ndjson", "cannot create"],
    );
}

#[test]
fn an_output_named_stdout_is_written_where_stdout_stands() {
    // `make why > why.txt` hands pl-score `-o /dev/stdout` with stdout a plain file: the
    // records follow what the shell wrote before, in order, and no link or device is replaced.
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "docs.ndjson", small_corpus(12).as_bytes());
    let script = "(echo first; pl-normalize -q docs.ndjson -o /dev/fd/1; \
                  pl-normalize -q docs.ndjson -o /proc/self/fd/1; echo last) > out.txt; \
                  pl-normalize -q docs.ndjson -o /dev/fd/2 2> err.txt";
    ok(sh(d.path(), script));
    let out = std::fs::read_to_string(d.path().join("out.txt")).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2 + 2 * 14, "{out}");
    assert_eq!((lines[0], lines[lines.len() - 1]), ("first", "last"));
    assert_eq!(
        ndjson(
            out.lines()
                .skip(1)
                .take(28)
                .collect::<Vec<_>>()
                .join("\n")
                .as_bytes()
        )
        .len(),
        28
    );
    let err = std::fs::read(d.path().join("err.txt")).unwrap();
    assert_eq!(ndjson(&err).len(), 14);
    for link in ["/dev/stdout", "/dev/stderr", "/dev/fd"] {
        let meta = std::fs::symlink_metadata(link).unwrap();
        assert!(meta.file_type().is_symlink(), "{link} is still a link");
    }
}

#[test]
fn an_output_inside_the_index_folder_is_refused() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "docs.ndjson", small_corpus(12).as_bytes());
    ok(sh(
        d.path(),
        "pl-index -q --index ix docs.ndjson -o groups.ndjson",
    ));
    let before = std::fs::read(d.path().join("ix/index.sqlite")).unwrap();
    // The database and the writers' lock by their names, and a name of the folder's own.
    for (tool, o) in [
        ("pl-index", "ix/index.sqlite"),
        ("pl-index", "./ix/../ix/index.lock"),
        ("pl-check", "ix/found.ndjson"),
    ] {
        let out = sh(
            d.path(),
            &format!("{tool} -q --index ix docs.ndjson -o {o}"),
        );
        fails(out, 2, tool, &[o, "inside --index ix"]);
    }
    assert_eq!(
        std::fs::read(d.path().join("ix/index.sqlite")).unwrap(),
        before
    );
    // The index still answers (exit 3: duplicates found).
    let out = sh(
        d.path(),
        "pl-check -q --index ix docs.ndjson -o found.ndjson",
    );
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(!ndjson(&std::fs::read(d.path().join("found.ndjson")).unwrap()).is_empty());
}
