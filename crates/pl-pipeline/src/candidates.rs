//! Candidate pairs as pl-score reads them: tens of millions of lines at a million documents,
//! read the fast way when they are what pl-lsh writes and held compactly.

use anyhow::Result;
use serde_json::Value;

use crate::ndjson::{get_u64, par_parse, parse_object, NdjsonReader, Obj};

/// One candidate pair and its other fields.
pub struct Cand {
    pub a: u64,
    pub b: u64,
    pub rest: Rest,
}

impl Cand {
    /// A candidate line, read the fast way when it is what pl-lsh writes (tens of millions of
    /// lines at a million documents), else as any JSON object.
    pub fn parse(text: &str) -> Result<Cand, String> {
        let cand = match serde_json::from_str::<LshFields>(text) {
            Ok(f) => Cand {
                a: f.a,
                b: f.b,
                rest: f.bands.map_or(Rest::None, Rest::Bands),
            },
            Err(_) => {
                let mut o = parse_object(text)?;
                let (a, b) = (get_u64(&o, "a")?, get_u64(&o, "b")?);
                o.remove("a");
                o.remove("b");
                Cand {
                    a,
                    b,
                    rest: Rest::new(o),
                }
            }
        };
        if cand.a >= cand.b {
            return Err(format!(
                "pair ({}, {}) is not ordered a < b",
                cand.a, cand.b
            ));
        }
        Ok(cand)
    }
}

/// A candidate line as pl-lsh writes it: `a`, `b` and `bands` (a number, not null), nothing
/// else.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LshFields {
    a: u64,
    b: u64,
    #[serde(default, deserialize_with = "some_u64")]
    bands: Option<u64>,
}

fn some_u64<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    <u64 as serde::Deserialize>::deserialize(d).map(Some)
}

/// A candidate's fields other than `a` and `b`, passed through to the output. Held compactly:
/// a million-document archive makes tens of millions of candidates, and a JSON map each
/// would take more memory than the documents.
pub enum Rest {
    None,
    /// Only `bands`, as pl-lsh writes it.
    Bands(u64),
    Fields(Box<Obj>),
}

impl Rest {
    fn new(o: Obj) -> Rest {
        match o.get("bands").and_then(Value::as_u64) {
            _ if o.is_empty() => Rest::None,
            Some(n) if o.len() == 1 => Rest::Bands(n),
            _ => Rest::Fields(Box::new(o)),
        }
    }

    /// The fields, in their input order.
    pub fn to_obj(&self) -> Obj {
        match self {
            Rest::None => Obj::new(),
            Rest::Bands(n) => Obj::from_iter([("bands".to_string(), Value::from(*n))]),
            Rest::Fields(o) => (**o).clone(),
        }
    }
}

/// Candidate lines parsed at once.
const CAND_CHUNK: usize = 1 << 14;

/// Reads every candidate line, a chunk at a time on every thread, in input order.
pub fn read_candidates(reader: &mut NdjsonReader) -> Result<Vec<Cand>> {
    let mut cands = Vec::new();
    par_parse(reader, CAND_CHUNK, Cand::parse, |_, _, c| {
        cands.push(c);
        Ok(())
    })?;
    cands.shrink_to_fit();
    Ok(cands)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_reads_the_same_by_either_path() {
        for line in [
            r#"{"a":1,"b":2,"bands":3}"#,
            r#"{"b":2,"a":1}"#,
            r#"{"a":1,"b":2,"bands":null}"#,
            r#"{"a":1,"b":2,"bands":3,"copy":true}"#,
            r#"{"a":1,"b":2,"bands":3,"bands":4}"#,
            r#"{"a":1,"b":2,"bands":2.5}"#,
        ] {
            let c = Cand::parse(line).unwrap();
            let mut o = parse_object(line).unwrap();
            assert_eq!((c.a, c.b), (1, 2), "{line}");
            o.remove("a");
            o.remove("b");
            assert_eq!(c.rest.to_obj(), o, "{line}");
        }
        for (line, err) in [
            (r#"{"a":2,"b":2}"#, "not ordered"),
            (r#"{"a":1.0,"b":2}"#, "invalid \"a\""),
            (r#"{"a":1}"#, "missing or invalid \"b\""),
        ] {
            let e = Cand::parse(line).err().unwrap();
            assert!(e.contains(err), "{line}: {e}");
        }
    }

    #[test]
    fn candidate_fields_come_back_as_given() {
        for line in [
            r#"{}"#,
            r#"{"bands":3}"#,
            r#"{"bands":-1}"#,
            r#"{"note":"x","bands":2}"#,
            r#"{"bands":2,"j":0.1000000000000000055511151231257827}"#,
        ] {
            let o = parse_object(line).unwrap();
            assert_eq!(Rest::new(o.clone()).to_obj(), o, "{line}");
        }
        let bands = parse_object(r#"{"bands":7}"#).unwrap();
        assert!(
            matches!(Rest::new(bands), Rest::Bands(7)),
            "held as a number"
        );
    }
}
