//! Documents gone from the library taken out of the index: pl-watch's periodic sync lists
//! every id Paperless still has, and the indexed documents it lacks are deleted (as a full
//! pl-index run deletes the documents its input lacks), under the same guard against a
//! listing that would delete most of the index.

use anyhow::Result;
use rustc_hash::FxHashSet;

use super::{Index, Summary};
use crate::log::Log;

/// Whether deleting `deleted` of the index's `stored` documents is more than half of them:
/// most likely a wrong listing (an empty, cut or wrong input; a token that sees less) rather
/// than a library that shrank that much. pl-index refuses it without --allow-mass-delete,
/// pl-watch's sync always.
pub fn mass_delete(deleted: usize, stored: u64) -> bool {
    deleted as u64 * 2 > stored
}

/// What a prune did.
#[derive(Debug)]
pub enum Pruned {
    /// These ids were deleted (none: nothing was gone), and the update's summary.
    Deleted(Vec<u64>, Summary),
    /// Nothing deleted: `gone` of the index's `stored` documents would have been, more than
    /// half ([`mass_delete`]).
    Refused {
        /// Indexed documents the listing lacks.
        gone: usize,
        /// Documents in the index.
        stored: u64,
    },
}

impl Index {
    /// The indexed documents `listed` (every id the library holds, from a whole listing)
    /// lacks: deleted from the index in one update, their pairs and groups with them; refused
    /// when they are more than half of it.
    pub fn prune(&mut self, listed: &[u64], log: &Log) -> Result<Pruned> {
        let listed: FxHashSet<u64> = listed.iter().copied().collect();
        let mut gone: Vec<u64> = self
            .sources()?
            .into_values()
            .filter(|id| !listed.contains(id))
            .collect();
        gone.sort_unstable();
        let stored = self.docs()?;
        if gone.is_empty() {
            return Ok(Pruned::Deleted(gone, Summary::default()));
        }
        if mass_delete(gone.len(), stored) {
            return Ok(Pruned::Refused {
                gone: gone.len(),
                stored,
            });
        }
        self.explain(false)?;
        let summary = self.update(
            Vec::new(),
            Vec::new(),
            gone.clone(),
            &Default::default(),
            log,
        )?;
        Ok(Pruned::Deleted(gone, summary))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{Access, Params, Prepared};
    use pl_core::text_records::DocRecord;

    /// Document `id` with the text of letter `n` (ids 1 and 2 share one: near-copies).
    fn doc(ix: &Index, id: u64, n: u64) -> Prepared {
        // Words of letters drawn from a generator seeded by `n`: texts that share nothing.
        let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut text = String::new();
        for _ in 0..150 {
            for _ in 0..6 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                text.push((b'a' + (x % 26) as u8) as char);
            }
            text.push(' ');
        }
        let line = format!("{{\"id\":{id},\"content\":{}}}", serde_json::json!(text));
        let o = pl_core::fields::parse_object(&line).unwrap();
        ix.engine
            .prepare_doc(DocRecord::from_obj(o).unwrap())
            .unwrap()
    }

    #[test]
    fn what_the_listing_lacks_is_deleted_unless_it_is_most_of_the_index() {
        assert!(!mass_delete(1, 2) && mass_delete(2, 3) && !mass_delete(0, 0));
        let dir = tempfile::tempdir().unwrap();
        let log = Log::new("test", true, false);
        let mut ix =
            Index::open(dir.path(), &|p: &Params| p.clone(), Access::Create, &log).unwrap();
        let docs: Vec<Prepared> = [(1, 1), (2, 1), (3, 3), (4, 4), (5, 5)]
            .iter()
            .map(|&(id, n)| doc(&ix, id, n))
            .collect();
        let sources = docs.iter().map(|p| (p.id, p.id)).collect();
        ix.update(docs, Vec::new(), Vec::new(), &sources, &log)
            .unwrap();
        let probe = doc(&ix, 9, 1);
        let near = |ix: &mut Index| -> Vec<u64> {
            ix.check(&probe).unwrap().iter().map(|d| d.id).collect()
        };
        assert_eq!(near(&mut ix), vec![1, 2]);
        // Nothing gone: nothing done.
        match ix.prune(&[1, 2, 3, 4, 5, 6], &log).unwrap() {
            Pruned::Deleted(gone, _) => assert!(gone.is_empty()),
            r => panic!("{r:?}"),
        }
        // Document 2 deleted in the library: it no longer matches.
        match ix.prune(&[1, 3, 4, 5], &log).unwrap() {
            Pruned::Deleted(gone, s) => assert_eq!((gone, s.deleted), (vec![2], 1)),
            r => panic!("{r:?}"),
        }
        assert_eq!(near(&mut ix), vec![1]);
        assert_eq!(ix.docs().unwrap(), 4);
        // A listing lacking three of the four: refused, nothing deleted.
        match ix.prune(&[4], &log).unwrap() {
            Pruned::Refused { gone, stored } => assert_eq!((gone, stored), (3, 4)),
            r => panic!("{r:?}"),
        }
        assert_eq!(ix.docs().unwrap(), 4);
        assert_eq!(near(&mut ix), vec![1]);
    }
}
