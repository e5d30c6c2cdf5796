//! Reading one NDJSON record: the line as a JSON object, and its typed fields, each error
//! naming the field and what it should hold (the caller adds the input and line).

use rustc_hash::FxHashSet;
use serde_json::{Map, Value};
use thiserror::Error;

/// A record: one JSON object.
pub type Obj = Map<String, Value>;

/// What is wrong with a record's field (the caller adds the input and line).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FieldError {
    /// The line is JSON, but not an object.
    #[error("not a JSON object")]
    NotObject,
    /// The line is not JSON.
    #[error("invalid JSON: {0}")]
    Json(String),
    /// A required non-negative integer is missing or not one.
    #[error("missing or invalid \"{0}\" (a non-negative integer)")]
    NotU64(String),
    /// A field that must be a boolean (or `null`) is not.
    #[error("invalid \"{0}\" (true or false)")]
    NotBool(String),
    /// A required number is missing or not one.
    #[error("missing or invalid \"{0}\" (a number)")]
    NotNumber(String),
    /// A number that must be from 0 to 1 is not.
    #[error("\"{key}\" is {value}, not from 0 to 1")]
    NotUnit {
        /// The field.
        key: String,
        /// Its value.
        value: f64,
    },
    /// A record without `members`.
    #[error("missing \"members\": is this pl-cluster output?")]
    NoMembers,
    /// A member that is not a document id.
    #[error("member ids must be integers")]
    MemberNotId,
    /// A member listed twice.
    #[error("member {0} is listed twice")]
    MemberTwice(u64),
    /// A `primary` that is not a document id.
    #[error("invalid \"primary\" (a document id)")]
    PrimaryNotId,
    /// A `primary` that is not among the members.
    #[error("primary {0} is not a member")]
    PrimaryNotMember(u64),
    /// A docs record's `content` that is neither a string nor `null`.
    #[error("\"content\" is not a string")]
    ContentNotString,
    /// What is wrong with a group, once its number is known.
    #[error("group {0}: {1}")]
    InGroup(u64, Box<FieldError>),
}

/// The readers of the tools report a record's error as text, after the input and line.
impl From<FieldError> for String {
    fn from(e: FieldError) -> String {
        e.to_string()
    }
}

/// Parses one line as a JSON object (the error says which of the two it is not).
pub fn parse_object(text: &str) -> Result<Obj, FieldError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(FieldError::NotObject),
        Err(e) => Err(FieldError::Json(e.to_string())),
    }
}

/// An upper bound of the values (containers, elements, keys and their values) a JSON text
/// parses into, found in one pass without parsing it: one, and one for each comma, colon and
/// opening bracket outside strings. What parsing it can cost is then known before it is
/// parsed (a body of a million small integers is a million values).
pub fn values_bound(text: &str) -> usize {
    let (mut n, mut in_string, mut escaped) = (1usize, false, false);
    for &b in text.as_bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b',' | b':' | b'[' | b'{' => n += 1,
                _ => {}
            }
        }
    }
    n
}

/// Reads a required non-negative integer `id`.
pub fn get_id(o: &Obj) -> Result<u64, FieldError> {
    get_u64(o, "id")
}

/// Reads a required u64 field.
pub fn get_u64(o: &Obj, key: &str) -> Result<u64, FieldError> {
    o.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| FieldError::NotU64(key.into()))
}

/// Reads a group's `members`: document ids, none twice, and `primary` among them when the
/// record has one.
pub fn get_members(o: &Obj) -> Result<Vec<u64>, FieldError> {
    let members: Vec<u64> = o
        .get("members")
        .and_then(Value::as_array)
        .ok_or(FieldError::NoMembers)?
        .iter()
        .map(|m| m.as_u64().ok_or(FieldError::MemberNotId))
        .collect::<Result<_, _>>()?;
    let mut seen = FxHashSet::default();
    if let Some(m) = members.iter().find(|m| !seen.insert(**m)) {
        return Err(FieldError::MemberTwice(*m));
    }
    if let Some(p) = o.get("primary") {
        let p = p.as_u64().ok_or(FieldError::PrimaryNotId)?;
        if !members.contains(&p) {
            return Err(FieldError::PrimaryNotMember(p));
        }
    }
    Ok(members)
}

/// Reads a required number from 0 to 1 (a score, a similarity, a confidence).
pub fn get_unit(o: &Obj, key: &str) -> Result<f64, FieldError> {
    let v = get_f64(o, key)?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(FieldError::NotUnit {
            key: key.into(),
            value: v,
        })
    }
}

/// Reads a required f64 field.
pub fn get_f64(o: &Obj, key: &str) -> Result<f64, FieldError> {
    o.get(key)
        .and_then(Value::as_f64)
        .ok_or_else(|| FieldError::NotNumber(key.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_values_bound_is_never_under_what_parsing_makes() {
        fn nodes(v: &Value) -> usize {
            1 + match v {
                Value::Array(a) => a.iter().map(nodes).sum(),
                Value::Object(o) => o.values().map(|v| 1 + nodes(v)).sum(),
                _ => 0,
            }
        }
        for text in [
            "1",
            "[]",
            "{}",
            r#"{"a":[1,2,3],"b":{"c":"x,y:[{"},"d":"\\\",[","e":[[],[{}]]}"#,
            "[1,1,1,1,1,1,1,1,1,1]",
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            let bound = values_bound(text);
            assert!(bound >= nodes(&v), "{text}: {bound} < {}", nodes(&v));
            assert!(
                bound <= 2 * nodes(&v),
                "{text}: {bound} far over {}",
                nodes(&v)
            );
        }
    }

    #[test]
    fn fields_name_what_is_wrong() {
        let o = parse_object(r#"{"id": 3, "s": 0.5, "big": 2, "members": [4, 4]}"#).unwrap();
        let text =
            |r: Result<_, FieldError>| -> String { r.map(|_: u64| ()).unwrap_err().to_string() };
        assert_eq!(get_id(&o), Ok(3));
        assert_eq!(get_unit(&o, "s"), Ok(0.5));
        assert_eq!(
            get_unit(&o, "big").unwrap_err().to_string(),
            "\"big\" is 2, not from 0 to 1"
        );
        assert_eq!(
            text(get_u64(&o, "x")),
            "missing or invalid \"x\" (a non-negative integer)"
        );
        assert_eq!(
            get_members(&o).unwrap_err().to_string(),
            "member 4 is listed twice"
        );
        assert_eq!(
            parse_object("[1]").unwrap_err().to_string(),
            "not a JSON object"
        );
        assert!(parse_object("{")
            .unwrap_err()
            .to_string()
            .starts_with("invalid JSON: "));
    }
}
