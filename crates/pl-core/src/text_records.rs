//! The NDJSON records of docs/FORMATS.md as types: docs, norm, cands, scores, groups and
//! truth (decisions are `decision::Decision`). Each is written by serde, fields in the
//! documented order; a record's fields that its type does not name are kept in `rest` and
//! written after the named ones, in their input order, so stages pass them through.
//!
//! Readers build a record with `from_obj`, which checks the fields through `fields` so that
//! every error names the field as before.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::evidence::Evidence;
use crate::fields::{get_id, get_members, get_u64, FieldError, Obj};

/// Takes `key` out of `o` without moving the fields after it (they keep their input order).
fn take(o: &mut Obj, key: &str) -> Option<Value> {
    o.shift_remove(key)
}

/// The accessors of a record's documented fields, each the field as the record has it, and
/// `FIELDS`, their names.
macro_rules! documented_fields {
    ($($name:ident),*) => {
        /// The documented fields other than `id`, in their documented order.
        pub const FIELDS: &'static [&'static str] = &[$(stringify!($name)),*];
        $(
            #[doc = concat!("The `", stringify!($name), "` field, as the record has it.")]
            pub fn $name(&self) -> Option<&Value> {
                self.fields().get(stringify!($name))
            }
        )*
    };
}

/// A docs record: the entry point of any corpus. Only `id` is checked; every field is kept
/// as the input has it (Paperless's values, `null` included) and in its input order, so the
/// record passes through a stage byte for byte, with the stage's own fields after it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct DocRecord {
    /// Paperless document id.
    #[serde(skip)]
    pub id: u64,
    /// Every field, `id` included, in input order.
    fields: Obj,
}

impl DocRecord {
    documented_fields!(
        title,
        content,
        created,
        added,
        modified,
        correspondent,
        document_type,
        tags,
        archive_serial_number,
        original_file_name,
        page_count,
        mime_type,
        url,
        owner,
        user_can_change,
        permissions
    );

    /// Reads a docs (or norm) record: `id` checked.
    pub fn from_obj(fields: Obj) -> Result<DocRecord, FieldError> {
        Ok(DocRecord {
            id: get_id(&fields)?,
            fields,
        })
    }

    /// Every field, in input order.
    pub fn fields(&self) -> &Obj {
        &self.fields
    }

    /// The text to normalize: `content`, empty when missing or `null`.
    pub fn text(&self) -> Result<&str, FieldError> {
        match self.content() {
            None | Some(Value::Null) => Ok(""),
            Some(Value::String(s)) => Ok(s),
            Some(_) => Err(FieldError::ContentNotString),
        }
    }
}

impl<'de> Deserialize<'de> for DocRecord {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<DocRecord, D::Error> {
        DocRecord::from_obj(Obj::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A norm record: the docs record with `norm`, `words` and `fingerprint` added after its
/// fields (or in their place, when it had them: a norm record normalized again).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NormRecord(DocRecord);

impl NormRecord {
    documented_fields!(norm, words, fingerprint);

    /// The norm record of `doc`.
    pub fn new(mut doc: DocRecord, norm: String, words: u64, fingerprint: String) -> NormRecord {
        doc.fields.insert("norm".into(), Value::String(norm));
        doc.fields.insert("words".into(), words.into());
        doc.fields
            .insert("fingerprint".into(), Value::String(fingerprint));
        NormRecord(doc)
    }

    /// Every field, in input order.
    pub fn fields(&self) -> &Obj {
        &self.0.fields
    }

    /// The docs record it holds.
    pub fn doc(&self) -> &DocRecord {
        &self.0
    }
}

/// A norm file read where docs are expected (`--docs norm.ndjson`) keeps its norm fields.
impl From<DocRecord> for NormRecord {
    fn from(doc: DocRecord) -> NormRecord {
        NormRecord(doc)
    }
}

/// A candidate pair of pl-lsh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CandRecord {
    /// The smaller id.
    pub a: u64,
    /// The larger id.
    pub b: u64,
    /// LSH bands the two signatures share.
    pub bands: u64,
    /// `true` on a copy pair (the same text, written alike), absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub copy: bool,
}

impl CandRecord {
    /// The record of a candidate pair, `copy` on a copy pair.
    pub fn new(c: crate::lsh::Candidate, copy: bool) -> CandRecord {
        CandRecord {
            a: c.a,
            b: c.b,
            bands: c.bands.into(),
            copy,
        }
    }
}

/// Two documents pl-score held apart (`{"a":1,"b":2,"apart":true}`, among its kept pairs): a
/// rejected pair whose numbers disagree with none agreeing ([`crate::ledger::Ledger::apart`]).
/// pl-cluster never puts them in one group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApartRecord {
    /// The smaller id.
    pub a: u64,
    /// The larger id.
    pub b: u64,
    /// Always true.
    pub apart: bool,
}

/// A scored pair: pl-score's (and pl-trigram's) output, and pl-score's `--rejected` records.
/// Absent fields are the dimensions a method or flag does not measure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScoreRecord {
    /// The smaller id.
    pub a: u64,
    /// The larger id.
    pub b: u64,
    /// The score the threshold applies to: the match probability of a pair the policy
    /// weighs, else its similarity.
    pub score: f64,
    /// pl-score's combined similarity (Jaccard or containment, and the fuzzy ratio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// Jaccard similarity of the shingle sets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jaccard: Option<f64>,
    /// The fuzzy ratio: `Some(None)` is written as `null` (not measured).
    #[serde(
        default,
        deserialize_with = "some_nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub fuzzy: Option<Option<f64>>,
    /// Containment of the smaller shingle set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containment: Option<f64>,
    /// Rarity-weighted Jaccard of the words holding digits: `Some(None)` is `null`.
    #[serde(
        default,
        deserialize_with = "some_nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub distinct: Option<Option<f64>>,
    /// The verifier's conflict weight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflicts: Option<f64>,
    /// Words of replaced blocks the verifier took for OCR damage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub garbled: Option<usize>,
    /// `true` when the verifier compared samples of a long text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<bool>,
    /// pl-trigram's similarity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigram: Option<f64>,
    /// `--explain`: distinctive words only `a` has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_a: Option<Vec<String>>,
    /// `--explain`: distinctive words only `b` has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_b: Option<Vec<String>>,
    /// `--explain`: the verifier's counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// `--explain`: conflict words of `a`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflicts_a: Option<Vec<String>>,
    /// `--explain`: conflict words of `b`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflicts_b: Option<Vec<String>>,
    /// `--explain`: the order-free evidence ([`crate::ledger`]) of a pair the alignment found
    /// conflicts in: which rare numbers agreed, which tokens stood against each other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ledger: Option<crate::ledger::Ledger>,
    /// `true` when the pair was kept on its order-free evidence although the alignment found
    /// more conflicts than its damage allows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rescued: Option<bool>,
    /// `true` when the pair's similarity was under the minimum and it was compared because two
    /// numbers that at most six documents hold are in both texts (the verifier decided it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_numbers: Option<bool>,
    /// `--explain`: the verdict's computation, term by term.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computation: Option<crate::scorer::Computation>,
    /// `--rejected`: the step that dropped the pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
    /// The candidate's other fields (`bands`, `copy`, yours), in input order.
    #[serde(flatten)]
    pub rest: Obj,
}

fn some_nullable<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<f64>>, D::Error> {
    Option::<f64>::deserialize(d).map(Some)
}

impl ScoreRecord {
    /// Whether the record writes a field named `key` itself.
    fn writes(&self, key: &str) -> bool {
        match key {
            "a" | "b" | "score" => true,
            "jaccard" => self.jaccard.is_some(),
            "fuzzy" => self.fuzzy.is_some(),
            "containment" => self.containment.is_some(),
            "distinct" => self.distinct.is_some(),
            "conflicts" => self.conflicts.is_some(),
            "garbled" => self.garbled.is_some(),
            "sampled" => self.sampled.is_some(),
            "trigram" => self.trigram.is_some(),
            "only_a" => self.only_a.is_some(),
            "only_b" => self.only_b.is_some(),
            "evidence" => self.evidence.is_some(),
            "conflicts_a" => self.conflicts_a.is_some(),
            "conflicts_b" => self.conflicts_b.is_some(),
            "ledger" => self.ledger.is_some(),
            "rescued" => self.rescued.is_some(),
            "by_numbers" => self.by_numbers.is_some(),
            "similarity" => self.similarity.is_some(),
            "computation" => self.computation.is_some(),
            "dropped" => self.dropped.is_some(),
            _ => self.rest.contains_key(key),
        }
    }

    /// Adds the candidate's fields after the record's own; a field the record writes itself
    /// is not passed through.
    pub fn pass_through(&mut self, fields: Obj) {
        for (k, v) in fields {
            if !self.writes(&k) {
                self.rest.insert(k, v);
            }
        }
    }
}

/// A group of pl-cluster.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupRecord {
    /// The group's number, from 1, by confidence.
    pub group: u64,
    /// The strongest pair's score (NaN, written `null`, when a record has none).
    pub confidence: f64,
    /// The strongest pair's Jaccard (`null` for methods without it).
    pub jaccard: Option<f64>,
    /// The strongest pair's fuzzy ratio (`null` for methods without it).
    pub fuzzy: Option<f64>,
    /// The strongest pair.
    pub pair: Option<[u64; 2]>,
    /// The document to keep.
    pub primary: u64,
    /// Every member, the primary included (ascending as pl-cluster writes them).
    pub members: Vec<u64>,
    /// Every other field, in input order.
    #[serde(flatten)]
    pub rest: Obj,
}

impl GroupRecord {
    /// Reads a group record: `members` unique with the primary among them, then `group` and
    /// `primary`; the dimensions are read when they are numbers (a pair when it is two ids).
    pub fn from_obj(mut o: Obj) -> Result<GroupRecord, FieldError> {
        let members = get_members(&o)?;
        let group = get_u64(&o, "group")?;
        let primary = get_u64(&o, "primary")?;
        for k in ["group", "primary", "members"] {
            take(&mut o, k);
        }
        let mut number = |k: &str| take(&mut o, k).as_ref().and_then(Value::as_f64);
        let confidence = number("confidence").unwrap_or(f64::NAN);
        let (jaccard, fuzzy) = (number("jaccard"), number("fuzzy"));
        let pair = take(&mut o, "pair").and_then(|p| serde_json::from_value(p).ok());
        Ok(GroupRecord {
            group,
            confidence,
            jaccard,
            fuzzy,
            pair,
            primary,
            members,
            rest: o,
        })
    }
}

/// A truth record: which documents are copies of which.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TruthRecord {
    /// Document id.
    pub id: u64,
    /// The original's id: documents with the same `cluster` are duplicates.
    pub cluster: u64,
    /// How the copy was made (`original` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// OCR noise: the scan's character error rate (0 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<f64>,
    /// The template family: one family, other clusters is a hard negative.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// The real-OCR fixture's scan quality.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan: Option<String>,
    /// Every other field, in input order.
    #[serde(flatten)]
    pub rest: Obj,
}

impl TruthRecord {
    /// Reads a truth record: `id` and `cluster` checked; the others read when they have the
    /// documented type and ignored otherwise.
    pub fn from_obj(mut o: Obj) -> Result<TruthRecord, FieldError> {
        let id = get_id(&o)?;
        let cluster = get_u64(&o, "cluster")?;
        take(&mut o, "id");
        take(&mut o, "cluster");
        let string = |v: Option<Value>| match v {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        Ok(TruthRecord {
            id,
            cluster,
            kind: string(take(&mut o, "kind")),
            noise: take(&mut o, "noise").as_ref().and_then(Value::as_f64),
            family: string(take(&mut o, "family")),
            scan: string(take(&mut o, "scan")),
            rest: o,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::{Decision, Verdict};
    use crate::fields::parse_object;
    use std::collections::BTreeSet;

    const FORMATS: &str = include_str!("../../../docs/FORMATS.md");

    /// The text of FORMATS.md's section `## title`, up to the next section.
    fn section(title: &str) -> &'static str {
        let start = FORMATS
            .find(&format!("\n## {title}\n"))
            .unwrap_or_else(|| panic!("FORMATS.md has no section {title}"));
        let rest = &FORMATS[start + 4 + title.len()..];
        &rest[..rest.find("\n## ").unwrap_or(rest.len())]
    }

    /// The field names of a section's table (the backticked names of each row's first
    /// cell) and of its JSON examples (every key of a line that is a JSON object, or of a
    /// backticked object in the text).
    fn documented(title: &str) -> (BTreeSet<String>, BTreeSet<String>) {
        let text = section(title);
        let mut table = BTreeSet::new();
        for row in text.lines().filter(|l| l.starts_with("| `")) {
            let cell = row.split('|').nth(1).unwrap();
            for name in cell.split('`').skip(1).step_by(2) {
                table.insert(name.to_string());
            }
        }
        let mut examples = BTreeSet::new();
        let candidates = text
            .lines()
            .flat_map(|l| l.split('`'))
            .filter(|s| s.starts_with("{\""));
        for example in candidates {
            if let Ok(o) = parse_object(example) {
                examples.extend(o.keys().cloned());
            }
        }
        // A field shown with its values in the text: `"scan":"mild"|"heavy"`.
        for piece in text.split('`').skip(1).step_by(2) {
            if let Some((name, _)) = piece.strip_prefix('"').and_then(|p| p.split_once("\":")) {
                examples.insert(name.to_string());
            }
        }
        (table, examples)
    }

    fn keys(v: impl Serialize) -> BTreeSet<String> {
        match serde_json::to_value(v).unwrap() {
            Value::Object(o) => o.keys().cloned().collect(),
            _ => panic!("not an object"),
        }
    }

    fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// Every field of a section's table (of its examples when it has none) is a field of its
    /// type, and every field of the type is documented (in the table or an example).
    fn agree(title: &str, fields: BTreeSet<String>) {
        let (mut table, examples) = documented(title);
        if table.is_empty() {
            table = examples.clone();
        }
        let all: BTreeSet<String> = table.union(&examples).cloned().collect();
        let undocumented: Vec<_> = fields.difference(&all).collect();
        let missing: Vec<_> = table.difference(&fields).collect();
        assert!(
            undocumented.is_empty() && missing.is_empty(),
            "{title}: fields of the type FORMATS.md does not document: {undocumented:?}; \
             documented fields the type lacks: {missing:?}"
        );
    }

    #[test]
    fn types_have_the_documented_fields() {
        let mut doc = names(DocRecord::FIELDS);
        doc.insert("id".into());
        agree("docs", doc);
        let norm = NormRecord::new(DocRecord::default(), String::new(), 0, String::new());
        assert_eq!(keys(&norm), names(NormRecord::FIELDS));
        agree("norm", names(NormRecord::FIELDS));
        let cand = CandRecord {
            a: 1,
            b: 2,
            bands: 3,
            copy: true,
        };
        agree("cands", keys(cand));
        let list = Some(Vec::new());
        let score = ScoreRecord {
            jaccard: Some(0.0),
            fuzzy: Some(None),
            containment: Some(0.0),
            distinct: Some(None),
            conflicts: Some(0.0),
            garbled: Some(0),
            sampled: Some(true),
            trigram: Some(0.0),
            only_a: list.clone(),
            only_b: list.clone(),
            evidence: Some(Evidence::default()),
            conflicts_a: list.clone(),
            conflicts_b: list,
            ledger: Some(crate::ledger::Ledger::default()),
            rescued: Some(true),
            dropped: Some("similarity".into()),
            by_numbers: Some(true),
            similarity: Some(0.99),
            computation: Some(crate::scorer::Computation::default()),
            ..ScoreRecord::default()
        };
        agree("scores", keys(score));
        let evidence_row = section("scores")
            .lines()
            .find(|l| l.starts_with("| `evidence`"))
            .unwrap();
        for k in keys(Evidence::default()) {
            assert!(evidence_row.contains(&format!("`{k}`")), "evidence {k}");
        }
        agree("groups", keys(GroupRecord::default()));
        let truth = TruthRecord {
            kind: Some(String::new()),
            noise: Some(0.0),
            family: Some(String::new()),
            scan: Some(String::new()),
            ..TruthRecord::default()
        };
        agree("truth", keys(truth));
        let decision = Decision {
            group: 1,
            decision: Verdict::Duplicate,
            primary: 1,
            members: vec![1],
            modified: Default::default(),
            confidence: None,
            decided_at: None,
        };
        agree("decisions", keys(decision));
    }

    #[test]
    fn docs_pass_through_in_input_order() {
        let o = parse_object(r#"{"z":1,"title":null,"id":3,"words":9,"content":"x"}"#).unwrap();
        let doc = DocRecord::from_obj(o).unwrap();
        assert_eq!((doc.id, doc.text().unwrap()), (3, "x"));
        assert_eq!(doc.title(), Some(&Value::Null));
        assert_eq!(doc.tags(), None);
        let norm = NormRecord::new(doc, "x".into(), 1, "f".into());
        let line = serde_json::to_string(&norm).unwrap();
        assert_eq!(
            line,
            r#"{"z":1,"title":null,"id":3,"words":1,"content":"x","norm":"x","fingerprint":"f"}"#
        );
        let back: NormRecord = serde_json::from_str(&line).unwrap();
        assert_eq!((back, norm.norm()), (norm.clone(), Some(&Value::from("x"))));
        let e = serde_json::from_str::<DocRecord>(r#"{"title":"t"}"#).unwrap_err();
        assert!(e.to_string().contains("missing or invalid \"id\""), "{e}");
        let e = DocRecord::from_obj(parse_object(r#"{"id":1,"content":2}"#).unwrap());
        assert_eq!(
            e.unwrap().text().unwrap_err().to_string(),
            "\"content\" is not a string"
        );
    }

    #[test]
    fn groups_are_checked_and_written_as_pl_cluster_writes_them() {
        let line = r#"{"group":4,"confidence":0.9,"jaccard":null,"fuzzy":0.5,"pair":[3,9],"primary":3,"members":[3,9],"mine":true}"#;
        let g = GroupRecord::from_obj(parse_object(line).unwrap()).unwrap();
        assert_eq!(
            (g.jaccard, g.fuzzy, g.pair),
            (None, Some(0.5), Some([3, 9]))
        );
        assert_eq!(serde_json::to_string(&g).unwrap(), line);
        let e = |s: &str| {
            GroupRecord::from_obj(parse_object(s).unwrap())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            e(r#"{"group":2,"primary":5,"members":[1]}"#),
            "primary 5 is not a member"
        );
        assert_eq!(
            e(r#"{"primary":1,"members":[1]}"#),
            "missing or invalid \"group\" (a non-negative integer)"
        );
        let g = GroupRecord::from_obj(
            parse_object(r#"{"group":1,"primary":1,"members":[1]}"#).unwrap(),
        );
        assert!(g.unwrap().confidence.is_nan());
    }

    #[test]
    fn score_records_write_nulls_and_leave_out_what_was_not_measured() {
        let mut s = ScoreRecord {
            a: 1,
            b: 2,
            score: 1.0,
            jaccard: Some(1.0),
            fuzzy: Some(None),
            containment: Some(0.5),
            distinct: Some(None),
            ..ScoreRecord::default()
        };
        s.pass_through(parse_object(r#"{"bands":3,"score":7,"conflicts":1}"#).unwrap());
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"a":1,"b":2,"score":1.0,"jaccard":1.0,"fuzzy":null,"containment":0.5,"distinct":null,"bands":3,"conflicts":1}"#
        );
        let cand = CandRecord {
            a: 1,
            b: 2,
            bands: 3,
            copy: false,
        };
        assert_eq!(
            serde_json::to_string(&cand).unwrap(),
            r#"{"a":1,"b":2,"bands":3}"#
        );
    }
}
