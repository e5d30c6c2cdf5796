//! Text from documents made safe to print on a terminal: a title is the name of an emailed
//! file, whoever sent it. Every character a terminal acts on instead of showing is written as
//! a visible escape: the C0 controls (`ESC`, `CR`, `LF`, `TAB`, ...) and `DEL` as `\x1b`, C1
//! controls (U+0080 to U+009F, among them the 8-bit CSI) and the characters that reorder or
//! break what follows them (bidi embeddings, overrides and isolates, the line and paragraph
//! separators) as `\u{202e}`. A backslash stays as it is.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` is written as an escape.
pub fn acts_on_terminal(c: char) -> bool {
    c.is_control() // C0, DEL and C1
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{2028}' | '\u{2029}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// `s` with every character a terminal would act on written as a visible escape.
pub fn visible(s: &str) -> Cow<'_, str> {
    if !s.chars().any(acts_on_terminal) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !acts_on_terminal(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:04x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_terminal_acts_on_is_shown_escaped() {
        assert!(matches!(visible("Rechnung März: 12 €"), Cow::Borrowed(_)));
        assert_eq!(
            visible("a\x1b]0;pwned\x07b\x1b[2J\rc\n  1 fake\tx\x7f"),
            "a\\x1b]0;pwned\\x07b\\x1b[2J\\x0dc\\x0a  1 fake\\x09x\\x7f"
        );
        assert_eq!(visible("\u{9b}31m\u{85}"), "\\u{009b}31m\\u{0085}");
        assert_eq!(
            visible("invoice\u{202e}fdp.exe\u{2066}\u{2028}"),
            "invoice\\u{202e}fdp.exe\\u{2066}\\u{2028}"
        );
        // Nothing left for a terminal to act on, whatever the input.
        for c in (0u32..0x3000).filter_map(char::from_u32) {
            let v = visible(&c.to_string()).into_owned();
            assert!(!v.chars().any(acts_on_terminal), "{c:?} -> {v:?}");
        }
    }
}
