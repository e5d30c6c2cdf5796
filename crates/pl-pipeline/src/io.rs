//! Opening inputs and outputs: one place that names the file in every error.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tempfile::NamedTempFile;

/// An opened input and the name used for it in messages.
pub struct Input {
    /// `-` style name: the path, or `<stdin>`.
    pub name: String,
    /// Buffered reader.
    pub reader: Box<dyn BufRead + Send>,
}

/// Opens a path, or stdin for `None` or `-`.
pub fn open_input(path: Option<&Path>) -> Result<Input> {
    match path {
        None => Ok(stdin_input()),
        Some(p) if p == Path::new("-") => Ok(stdin_input()),
        Some(p) => {
            let f = File::open(p).with_context(|| format!("{}: cannot open", p.display()))?;
            Ok(Input {
                name: p.display().to_string(),
                reader: Box::new(BufReader::with_capacity(1 << 16, f)),
            })
        }
    }
}

fn stdin_input() -> Input {
    if io::stdin().is_terminal() {
        // A tool run with no input file would otherwise wait without a word.
        let tool = std::env::args_os()
            .next()
            .and_then(|a| Some(Path::new(&a).file_name()?.to_string_lossy().into_owned()))
            .unwrap_or_default();
        eprintln!(
            "{tool}: reading records from the terminal (stdin): name an input file or pipe \
             one in; Ctrl-D ends"
        );
    }
    Input {
        name: "<stdin>".into(),
        reader: Box::new(BufReader::with_capacity(1 << 16, io::stdin())),
    }
}

/// Where records go: stdout, or a file replaced atomically when the tool succeeds.
pub enum Output {
    /// Locked, block-buffered stdout.
    Stdout(BufWriter<io::StdoutLock<'static>>),
    /// A temporary file beside the target, renamed over it by [`Output::finish`].
    File(AtomicFile),
    /// A target that is not a regular file (`/dev/null`, a FIFO): written in place, since
    /// renaming over it would replace the device or pipe with a plain file.
    Special(BufWriter<File>, PathBuf),
}

/// A file written under a temporary name and renamed into place only on success, so an
/// interrupted or failed run never leaves a half-written output (make trusts file dates).
/// The temporary is created exclusively ([`temp_beside`]): a link planted at its name is
/// never followed. Dropped unfinished, it is removed.
pub struct AtomicFile {
    target: PathBuf,
    w: Option<BufWriter<NamedTempFile>>,
}

/// Refuses, like gzip, to write a binary stream to a terminal: a usage error (exit 2) raised
/// before any input is read, when the output is stdout (`None` or `-`) and stdout is a
/// terminal.
pub fn refuse_binary_on_terminal(path: Option<&Path>) -> Result<()> {
    let to_stdout = path.is_none_or(|p| p == Path::new("-"));
    if to_stdout && io::stdout().is_terminal() {
        return Err(crate::error::UsageError(
            "refusing to write a binary stream to a terminal; use -o FILE or a pipe (or \
             --format json for NDJSON)"
                .into(),
        )
        .into());
    }
    Ok(())
}

/// Creates the output: stdout for `None` or `-`, the process's own stdout or stderr for
/// their names (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/2`...), an existing device or pipe
/// or anything under `/dev` or `/proc` written in place, else an atomic file (its folder
/// created when missing).
pub fn create_output(path: Option<&Path>) -> Result<Output> {
    if let Some(p) = path {
        if let Some(f) = standard_stream(p)
            .with_context(|| format!("{}: cannot open for writing", p.display()))?
        {
            return Ok(Output::Special(
                BufWriter::with_capacity(1 << 16, f),
                p.to_path_buf(),
            ));
        }
    }
    match path {
        Some(p) if written_in_place(p) => {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(p)
                .with_context(|| format!("{}: cannot open for writing", p.display()))?;
            Ok(Output::Special(
                BufWriter::with_capacity(1 << 16, f),
                p.to_path_buf(),
            ))
        }
        Some(p) if p != Path::new("-") => {
            let dir = p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let name = p
                .file_name()
                .with_context(|| format!("{}: not a file name", p.display()))?;
            if !dir.is_dir() {
                std::fs::create_dir_all(dir).with_context(|| {
                    format!(
                        "{}: cannot create its folder {}",
                        p.display(),
                        dir.display()
                    )
                })?;
            }
            remove_stale_temporaries(dir, &name.to_string_lossy());
            let tmp = temp_beside(dir, &name.to_string_lossy())
                .with_context(|| format!("{}: cannot create its temporary file", p.display()))?;
            Ok(Output::File(AtomicFile {
                target: p.to_path_buf(),
                w: Some(BufWriter::with_capacity(1 << 16, tmp)),
            }))
        }
        _ => Ok(Output::Stdout(BufWriter::with_capacity(
            1 << 16,
            io::stdout().lock(),
        ))),
    }
}

/// Refuses two outputs of one run that name the same file (`-o out.ndjson --rejected
/// ./out.ndjson`): the second rename would replace the first's records without a word. Two
/// names of stdout, a device or a pipe are written in place, one after the other, and pass.
/// Each output is `(flag, path)`.
pub fn refuse_same_file(a: (&str, Option<&Path>), b: (&str, Option<&Path>)) -> Result<()> {
    // A folder fails at its rename on its own.
    let file = |p: Option<&Path>| {
        p.filter(|&p| p != Path::new("-") && !written_in_place(p) && !p.is_dir())
            .map(location)
    };
    match (file(a.1), file(b.1)) {
        (Some(x), Some(y)) if x == y => Err(crate::error::UsageError(format!(
            "{} {} and {} {} are the same file: give each its own",
            a.0,
            a.1.expect("a file").display(),
            b.0,
            b.1.expect("a file").display()
        ))
        .into()),
        _ => Ok(()),
    }
}

/// Refuses an output file inside a folder a tool keeps its own files in (`-o ix/index.sqlite`
/// with `--index ix`): the rename would replace the index's database or its writers' lock.
/// `out` and `dir` are `(flag, path)`.
pub fn refuse_inside(out: (&str, Option<&Path>), dir: (&str, &Path)) -> Result<()> {
    let Some(p) = out.1.filter(|&p| p != Path::new("-") && !in_system_tree(p)) else {
        return Ok(());
    };
    let folder = std::fs::canonicalize(dir.1).unwrap_or_else(|_| location(dir.1));
    if location(p).parent() == Some(folder.as_path()) {
        return Err(crate::error::UsageError(format!(
            "{} {} is inside {} {}: give it a place of its own",
            out.0,
            p.display(),
            dir.0,
            dir.1.display()
        ))
        .into());
    }
    Ok(())
}

/// Where a file is, whichever way it is named: its folder resolved (links and `..` followed,
/// when it exists) and its name.
fn location(p: &Path) -> PathBuf {
    let dir = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| {
        // A folder still to be made: `..` taken lexically (nothing there is a link yet).
        let mut d = PathBuf::new();
        for c in std::path::absolute(dir)
            .unwrap_or_else(|_| dir.to_path_buf())
            .components()
        {
            match c {
                std::path::Component::ParentDir => {
                    d.pop();
                }
                std::path::Component::CurDir => {}
                c => d.push(c),
            }
        }
        d
    });
    dir.join(p.file_name().unwrap_or_default())
}

/// The process's stdout or stderr when `p` names it, as a handle sharing its open file (and
/// so its offset): `make why > why.txt` hands `-o /dev/stdout` a regular file behind a link,
/// which an atomic rename would replace (the system's `/dev/stdout` itself, for root), and
/// which a second open would write from its start, over what was written before.
fn standard_stream(p: &Path) -> io::Result<Option<File>> {
    use std::os::fd::AsFd;
    let fd = match p.to_str() {
        Some("/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1") => {
            io::stdout().as_fd().try_clone_to_owned()?
        }
        Some("/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2") => {
            io::stderr().as_fd().try_clone_to_owned()?
        }
        _ => return Ok(None),
    };
    Ok(Some(File::from(fd)))
}

/// Whether [`create_output`] writes to `p` where it stands: anything under `/dev` or `/proc`,
/// or an existing device or pipe elsewhere (renaming over it would replace it with a file).
fn written_in_place(p: &Path) -> bool {
    in_system_tree(p) || std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Whether `p` is under `/dev` or `/proc`: a device, a descriptor or a kernel file, written
/// where it is, never replaced by a rename.
fn in_system_tree(p: &Path) -> bool {
    p.starts_with("/dev") || p.starts_with("/proc")
}

/// A new temporary file in `dir` for the file `name`: `.NAME.PID.RANDOM.tmp`, created
/// exclusively (`O_EXCL`, so never through a link planted at its name) with the mode a plain
/// create would give (0666 less the umask), removed when dropped unless persisted.
pub fn temp_beside(dir: &Path, name: &str) -> io::Result<NamedTempFile> {
    let prefix = format!(".{name}.{}.", std::process::id());
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b.tempfile_in(dir)
}

/// Removes the temporaries `.NAME.PID.RANDOM.tmp` (or `.NAME.PID.tmp`, as earlier versions
/// named them) that runs killed before they finished left beside the output `NAME` (their
/// process is gone), so they do not pile up. Linux only (`/proc`).
pub(crate) fn remove_stale_temporaries(dir: &Path, name: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    for e in entries.flatten() {
        let file = e.file_name();
        let file = file.to_string_lossy();
        let pid = file
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(".tmp"))
            .map(|r| r.split_once('.').map_or(r, |(pid, _)| pid))
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

impl Output {
    /// What this output is called in errors: the target file, or `<stdout>`.
    fn name(&self) -> String {
        match self {
            Output::Stdout(_) => "<stdout>".into(),
            Output::Special(_, p) => p.display().to_string(),
            Output::File(a) => a.target.display().to_string(),
        }
    }

    /// The buffered writer underneath.
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Output::Stdout(w) => w,
            Output::Special(w, _) => w,
            Output::File(a) => a.w.as_mut().expect("open until finish"),
        }
    }

    /// An I/O error that names the output, keeping its kind (a closed pipe stays one).
    fn named(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("{}: write failed: {e}", self.name()))
    }

    /// Flushes, and for a file renames it into place. Errors name the file.
    pub fn finish(self) -> Result<()> {
        match self {
            Output::Stdout(mut w) => w.flush().context("<stdout>: write failed"),
            Output::Special(mut w, p) => w
                .flush()
                .with_context(|| format!("{}: write failed", p.display())),
            Output::File(mut a) => {
                let w = a.w.take().expect("open until finish");
                let f = w
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .with_context(|| format!("{}: write failed", a.target.display()))?;
                f.as_file()
                    .sync_all()
                    .with_context(|| format!("{}: sync failed", a.target.display()))?;
                f.persist(&a.target)
                    .map_err(|e| e.error)
                    .with_context(|| format!("{}: cannot rename into place", a.target.display()))?;
                Ok(())
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.writer().write(buf);
        r.map_err(|e| self.named(e))
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let r = self.writer().write_all(buf);
        r.map_err(|e| self.named(e))
    }
    fn flush(&mut self) -> io::Result<()> {
        let r = self.writer().flush();
        r.map_err(|e| self.named(e))
    }
}
