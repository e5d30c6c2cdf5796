//! Reading one NDJSON record: the line as a JSON object, and its typed fields, each error
//! naming the field and what it should hold (the caller adds the input and line).

use rustc_hash::FxHashSet;
use serde_json::{Map, Value};

/// A record: one JSON object.
pub type Obj = Map<String, Value>;

/// Parses one line as a JSON object (the error says which of the two it is not).
pub fn parse_object(text: &str) -> Result<Obj, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err("not a JSON object".into()),
        Err(e) => Err(format!("invalid JSON: {e}")),
    }
}

/// Reads a required non-negative integer `id`.
pub fn get_id(o: &Obj) -> Result<u64, String> {
    o.get("id")
        .and_then(Value::as_u64)
        .ok_or_else(|| "missing or invalid \"id\" (a non-negative integer)".to_string())
}

/// Reads a required u64 field.
pub fn get_u64(o: &Obj, key: &str) -> Result<u64, String> {
    o.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("missing or invalid \"{key}\" (a non-negative integer)"))
}

/// Reads a group's `members`: document ids, none twice, and `primary` among them when the
/// record has one.
pub fn get_members(o: &Obj) -> Result<Vec<u64>, String> {
    let members: Vec<u64> = o
        .get("members")
        .and_then(Value::as_array)
        .ok_or("missing \"members\": is this pl-cluster output?")?
        .iter()
        .map(|m| m.as_u64().ok_or("member ids must be integers"))
        .collect::<Result<_, _>>()?;
    let mut seen = FxHashSet::default();
    if let Some(m) = members.iter().find(|m| !seen.insert(**m)) {
        return Err(format!("member {m} is listed twice"));
    }
    if let Some(p) = o.get("primary") {
        let p = p.as_u64().ok_or("invalid \"primary\" (a document id)")?;
        if !members.contains(&p) {
            return Err(format!("primary {p} is not a member"));
        }
    }
    Ok(members)
}

/// Reads a required number from 0 to 1 (a score, a similarity, a confidence).
pub fn get_unit(o: &Obj, key: &str) -> Result<f64, String> {
    let v = get_f64(o, key)?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("\"{key}\" is {v}, not from 0 to 1"))
    }
}

/// Reads a required f64 field.
pub fn get_f64(o: &Obj, key: &str) -> Result<f64, String> {
    o.get(key)
        .and_then(Value::as_f64)
        .ok_or_else(|| format!("missing or invalid \"{key}\" (a number)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_name_what_is_wrong() {
        let o = parse_object(r#"{"id": 3, "s": 0.5, "big": 2, "members": [4, 4]}"#).unwrap();
        assert_eq!(get_id(&o), Ok(3));
        assert_eq!(get_unit(&o, "s"), Ok(0.5));
        assert_eq!(
            get_unit(&o, "big").unwrap_err(),
            "\"big\" is 2, not from 0 to 1"
        );
        assert_eq!(
            get_u64(&o, "x").unwrap_err(),
            "missing or invalid \"x\" (a non-negative integer)"
        );
        assert_eq!(get_members(&o).unwrap_err(), "member 4 is listed twice");
        assert_eq!(parse_object("[1]").unwrap_err(), "not a JSON object");
        assert!(parse_object("{").unwrap_err().starts_with("invalid JSON: "));
    }
}
