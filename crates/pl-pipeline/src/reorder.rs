//! Output lines made out of order, given back in input order: a tool that works through its
//! records in another order (pl-score, a batch of documents at a time) puts each line in a
//! temporary file under its record's number and drains them in number order at the end.
//! Memory: 8 bytes per record number, whatever the lines.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;

use anyhow::{Context, Result};

/// No line for this record.
const NONE: u64 = u64::MAX;

/// Lines by record number, spilled to an unnamed temporary file.
pub struct Reorder {
    w: BufWriter<File>,
    /// Where each record's line starts in the file, or [`NONE`].
    at: Vec<u64>,
    len: u64,
}

impl Reorder {
    /// Room for records `0..n`.
    pub fn new(n: usize) -> Result<Reorder> {
        let f = tempfile::tempfile().context("cannot create a temporary file")?;
        Ok(Reorder {
            w: BufWriter::with_capacity(1 << 16, f),
            at: vec![NONE; n],
            len: 0,
        })
    }

    /// Puts record `i`'s line, for output `sink` (a small number the caller gives meaning).
    pub fn put(&mut self, i: usize, sink: u8, line: &[u8]) -> Result<()> {
        assert_eq!(self.at[i], NONE, "record {i} put twice");
        self.at[i] = self.len;
        let n = u32::try_from(line.len()).context("an output line over 4 GB")?;
        self.w.write_all(&[sink])?;
        self.w.write_all(&n.to_le_bytes())?;
        self.w.write_all(line)?;
        self.len += 5 + u64::from(n);
        Ok(())
    }

    /// Gives every line to `write` in record order.
    pub fn drain(self, mut write: impl FnMut(u8, &[u8]) -> Result<()>) -> Result<()> {
        let f = self
            .w
            .into_inner()
            .map_err(|e| e.into_error())
            .context("temporary file")?;
        let mut head = [0u8; 5];
        let mut line = Vec::new();
        for &at in self.at.iter().filter(|&&at| at != NONE) {
            f.read_exact_at(&mut head, at).context("temporary file")?;
            let n = u32::from_le_bytes(head[1..].try_into().expect("4 bytes"));
            line.resize(n as usize, 0);
            f.read_exact_at(&mut line, at + 5)
                .context("temporary file")?;
            write(head[0], &line)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_back_in_record_order() {
        let mut r = Reorder::new(5).unwrap();
        r.put(3, 1, b"three").unwrap();
        r.put(0, 0, b"zero").unwrap();
        r.put(4, 0, b"").unwrap();
        r.put(1, 1, b"one").unwrap();
        let mut got = Vec::new();
        r.drain(|sink, line| {
            got.push((sink, String::from_utf8(line.to_vec()).unwrap()));
            Ok(())
        })
        .unwrap();
        let want = [(0, "zero"), (1, "one"), (1, "three"), (0, "")];
        assert_eq!(
            got,
            want.iter()
                .map(|&(s, l)| (s, l.to_string()))
                .collect::<Vec<_>>()
        );
    }
}
