//! Finding the API token in what a server sends back, in the forms a server may echo it: in
//! any letter case (a header upper-cased), with a backslash before any of its characters
//! (JSON's `\"` `\\` `\/`), as a JSON `\u00XX` escape, or URL-encoded (`%XX`), each character
//! in any of these forms; and base64-encoded inside a longer text (a server echoing the
//! `Authorization` header, or basic credentials, encoded), in either alphabet. Everything is
//! redacted before it is cut, shown or parsed: a cut could leave a prefix of the token that no
//! longer matches.

use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use base64::Engine;

/// What the token is replaced with.
pub const REDACTED: &str = "<token>";

/// `bytes` with every form of `token` (ASCII, not empty) replaced by [`REDACTED`].
pub fn redact(token: &[u8], bytes: Vec<u8>) -> Vec<u8> {
    if token.is_empty() {
        return bytes;
    }
    let first = token[0];
    let mut out: Option<Vec<u8>> = None;
    let mut last = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let may_start = b.eq_ignore_ascii_case(&first) || b == b'\\' || b == b'%';
        match may_start.then(|| match_at(&bytes, i, token)).flatten() {
            Some(end) => {
                let o = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
                o.extend_from_slice(&bytes[last..i]);
                o.extend_from_slice(REDACTED.as_bytes());
                last = end;
                i = end;
            }
            None => i += 1,
        }
    }
    let bytes = match out {
        None => bytes,
        Some(mut o) => {
            o.extend_from_slice(&bytes[last..]);
            o
        }
    };
    base64_forms(token)
        .iter()
        .fold(bytes, |b, form| replace_all(b, form))
}

/// Fewest base64 characters redacted: 48 bits of the token, which no text holds by chance.
const MIN_BASE64_CHARS: usize = 8;

/// The parts of the token's base64 forms that do not depend on what is encoded with it: for
/// each of the three places it can start in a 3-byte group, the characters made of its bits
/// alone, in the standard alphabet (also with `/` escaped for JSON as `\/`) and the URL-safe
/// one; none shorter than [`MIN_BASE64_CHARS`].
fn base64_forms(token: &[u8]) -> Vec<Vec<u8>> {
    let mut forms = Vec::new();
    for before in 0..3usize {
        let mut buf = vec![0u8; before];
        buf.extend_from_slice(token);
        // Character j holds bits 6j..6j + 6: the token's alone when 6j ≥ 8·before and
        // 6j + 6 ≤ 8·len.
        let (first, end) = ((8 * before).div_ceil(6), 8 * buf.len() / 6);
        if end < first + MIN_BASE64_CHARS {
            continue;
        }
        for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
            let form = engine.encode(&buf).into_bytes()[first..end].to_vec();
            if form.contains(&b'/') {
                let escaped = form.iter().flat_map(|&c| match c {
                    b'/' => vec![b'\\', b'/'],
                    c => vec![c],
                });
                forms.push(escaped.collect());
            }
            forms.push(form);
        }
    }
    forms.sort();
    forms.dedup();
    forms
}

/// `bytes` with every occurrence of `needle` replaced by [`REDACTED`].
fn replace_all(bytes: Vec<u8>, needle: &[u8]) -> Vec<u8> {
    let mut found = memchr::memmem::find_iter(&bytes, needle).peekable();
    if found.peek().is_none() {
        return bytes;
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut last = 0;
    for at in found {
        if at < last {
            continue; // overlaps the one just redacted
        }
        out.extend_from_slice(&bytes[last..at]);
        out.extend_from_slice(REDACTED.as_bytes());
        last = at + needle.len();
    }
    out.extend_from_slice(&bytes[last..]);
    out
}

/// [`redact`] for a text.
pub fn redact_str(token: &[u8], s: String) -> String {
    let bytes = redact(token, s.into_bytes());
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Where a form of `token` starting at `at` ends, if one does.
fn match_at(h: &[u8], mut at: usize, token: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < token.len() {
        if token[i] != b'\\' {
            at = one_char(h, at, token[i])?;
            i += 1;
            continue;
        }
        // A run of the token's backslashes is matched as a whole: a run of them in the text
        // (raw, escaped, doubled) stands for as many of the token's as it holds. (Matched one
        // by one, the first took the text's whole run and left the next none: a token with
        // `\\` was echoed in clear.)
        let mut left = token[i..].iter().take_while(|&&b| b == b'\\').count();
        i += left;
        while left > 0 {
            let run = h[at..].iter().take_while(|&&b| b == b'\\').count();
            let end = one_char(h, at, b'\\')?;
            left = left.saturating_sub(if end == at + run { run } else { 1 });
            at = end;
        }
    }
    Some(at)
}

/// Where one character `c` of the token, in one of its forms, starting at `at` ends. The
/// escapes are tried first (`\u005c` is a backslash, not a backslash and `u005c`).
fn one_char(h: &[u8], at: usize, c: u8) -> Option<usize> {
    let byte = |i: usize| h.get(i).copied();
    let mut j = at;
    while byte(j) == Some(b'\\') {
        j += 1;
    }
    if j > at {
        let code = |len: usize| h.get(j + 1..j + 1 + len).and_then(hex);
        match byte(j) {
            Some(b'u' | b'U') if code(4) == Some(u32::from(c)) => return Some(j + 5),
            Some(b'x' | b'X') if code(2) == Some(u32::from(c)) => return Some(j + 3),
            Some(b) if c != b'\\' && b.eq_ignore_ascii_case(&c) => return Some(j + 1),
            _ => {}
        }
    }
    if byte(at)?.eq_ignore_ascii_case(&c) {
        // A backslash of the token is also matched by a run of them (escaped, doubled).
        return Some(if c == b'\\' { j } else { at + 1 });
    }
    if byte(at)? == b'%' {
        return (hex(h.get(at + 1..at + 3)?)? == u32::from(c)).then_some(at + 3);
    }
    None
}

/// Hex digits (either case) as a number.
fn hex(s: &[u8]) -> Option<u32> {
    s.iter()
        .try_fold(0u32, |n, &d| Some(n * 16 + char::from(d).to_digit(16)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(token: &str, s: &str) -> String {
        redact_str(token.as_bytes(), s.to_string())
    }

    #[test]
    fn every_echoed_form_in_any_case_is_redacted() {
        let t = r#"SeCr3t"\/k"#;
        for echo in [
            r#"SeCr3t"\/k"#,
            r#"SECR3T"\/K"#,
            r#"secr3t"\/k"#,
            r#"SeCr3t\"\\\/k"#,
            r#"SECR3T\"\\\/K"#,
            r#"SeCr3t\u0022\u005c\u002Fk"#,
            "SeCr3t%22%5C%2fk",
            "%53%65%43r3t%22%5c/K",
        ] {
            let got = r(t, &format!("detail: Token {echo}, again"));
            assert_eq!(got, "detail: Token <token>, again", "{echo}");
        }
        assert_eq!(r("s3cr3t", "s3cr3ts3cr3t S3CR3T"), "<token><token> <token>");
        assert_eq!(r("s3cr3t", "nothing s3cr3 here"), "nothing s3cr3 here");
        assert_eq!(r("s3cr3t", "ünïcode s3cr3t"), "ünïcode <token>");
        // A token with a run of backslashes, raw, escaped for JSON, and each as `\u005c`.
        let t = r#"Sekr3t"Tok\\"#;
        for echo in [
            r#"Sekr3t"Tok\\"#,
            r#"Sekr3t\"Tok\\\\"#,
            r#"Sekr3t"Tok\u005c\u005C"#,
            "Sekr3t%22Tok%5c%5C",
        ] {
            let got = r(t, &format!("detail: Token {echo}, again"));
            assert_eq!(got, "detail: Token <token>, again", "{echo}");
        }
        assert_eq!(r(t, r#"Sekr3t"Tok\ alone"#), r#"Sekr3t"Tok\ alone"#);
        let b = b"x\\\\\\".to_vec();
        assert_eq!(redact(b"s3", b.clone()), b, "a trailing run of backslashes");
    }

    #[test]
    fn the_token_base64_encoded_inside_a_longer_text_is_redacted() {
        let token = "0123abcd4567ef89s3cr3t";
        for before in ["", "T", "To", "Token ", "Authorization: Token ", "user:"] {
            for after in ["", "x", ", again"] {
                let plain = format!("{before}{token}{after}");
                for encoded in [
                    STANDARD_NO_PAD.encode(&plain),
                    URL_SAFE_NO_PAD.encode(&plain),
                ] {
                    let json = encoded.replace('/', "\\/");
                    for echo in [encoded, json] {
                        let got = r(token, &format!("{{\"echo\":\"{echo}\"}}"));
                        assert_eq!(
                            got.matches(REDACTED).count(),
                            1,
                            "{before:?} {after:?}: {got}"
                        );
                        // All but the two characters at each end that share bits with
                        // what was encoded around it.
                        let removed = echo.len() + 11 + REDACTED.len() - got.len();
                        assert!(
                            removed >= 8 * token.len() / 6 - 2,
                            "{before:?} {after:?}: {got}"
                        );
                    }
                }
            }
        }
        // A short token has no base64 form long enough to look for.
        assert!(base64_forms(b"s3cr3").is_empty());
        assert_eq!(r("s3cr3", "czNjcjM="), "czNjcjM=");
    }
}
