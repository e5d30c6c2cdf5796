//! Numbers as a document writes them: their sign, separators, units and brackets, which
//! normalization keeps (`174.65`, `-174.65`, `1/12/2024`, `$174.65`, `(174.65)`) and the
//! similarity stages do not read ([`crate::normalize::digits_view`]: OCR reads `.` for `,`,
//! drops a separator, a minus sign or a currency symbol, and the shingles, the alignment and
//! the ledger were made for the digits alone). What they tell apart is asked of a pair once:
//! [`values_apart`], the same digits written as another value (another sign, the decimal
//! point elsewhere, another currency), which the verifier holds against a clean pair
//! ([`crate::scorer`]).

use xxhash_rust::xxh3::xxh3_64;

use crate::normalize::{ends_in_cents, is_mark, is_percent, is_relation, is_unit};

/// The numbers of one text as it writes them, keyed by their digits (the hash of the word the
/// digits view holds): those written bare (digits, letters, no sign or separator) by key, and
/// those written with a sign or a separator, with their written form. What one text costs:
/// 8 bytes per distinct bare number, 24 and its length per distinct marked one.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Written {
    /// Keys of the numbers written bare, sorted, each once.
    bare: Vec<u64>,
    /// Keys and written forms of the numbers with a sign or a separator, sorted, each once.
    marked: Vec<(u64, Box<str>)>,
    /// The fuzzy sample of the text as written, when it has marked numbers (the scorer's
    /// sample is of its digits view).
    sample: Option<Box<str>>,
}

impl Written {
    /// Bytes it holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.bare.capacity() * 8
            + self.marked.capacity() * std::mem::size_of::<(u64, Box<str>)>()
            + self.marked.iter().map(|(_, w)| w.len()).sum::<usize>()
            + self.sample.as_ref().map_or(0, |s| s.len())
    }

    /// The numbers (words holding a digit) of a normalized text.
    pub fn of(norm: &str) -> Written {
        let mut w = Written::default();
        for word in crate::verify::words(norm) {
            if !word.bytes().any(|c| c.is_ascii_digit()) {
                continue;
            }
            if word.chars().any(is_mark) {
                w.marked.push((key(word), word.into()));
            } else {
                w.bare.push(xxh3_64(word.as_bytes()));
            }
        }
        w.bare.sort_unstable();
        w.bare.dedup();
        w.marked.sort_unstable();
        w.marked.dedup();
        w.bare.shrink_to_fit();
        w.marked.shrink_to_fit();
        w
    }

    /// The numbers written with a sign or a separator, each once, as written.
    pub fn marked_forms(&self) -> impl Iterator<Item = &str> {
        self.marked.iter().map(|(_, w)| &**w)
    }

    /// Whether the text writes number `w` (with its marks) as written.
    pub fn has_marked(&self, w: &str) -> bool {
        self.readings(key(w)).any(|r| r == Some(w))
    }

    /// Keeps the fuzzy sample of the text as written (when its digits view differs).
    pub fn set_sample(&mut self, sample: &str) {
        self.sample = Some(sample.into());
    }

    /// The fuzzy sample of the text as written, if it differs from its digits view's.
    pub fn sample(&self) -> Option<&str> {
        self.sample.as_deref()
    }

    /// The written forms this text has of the digits keyed `k`: its marked ones, and the
    /// key's own digits when it has them bare (`None` there: the bare form is what any other
    /// form reads as, without its marks).
    fn readings(&self, k: u64) -> impl Iterator<Item = Option<&str>> + '_ {
        let from = self.marked.partition_point(|(m, _)| *m < k);
        let marked = self.marked[from..]
            .iter()
            .take_while(move |(m, _)| *m == k)
            .map(|(_, w)| Some(&**w));
        let bare = self.bare.binary_search(&k).is_ok().then_some(None);
        marked.chain(bare)
    }
}

/// The marked numbers of either text that the other has only as another value: every form
/// the other text writes the same digits in is [`another_value`] of it (a text that also has
/// the same reading, or a compatible one, is not counted). Two texts that differ in a total's
/// decimal point count 1 on each side.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Apart {
    /// Numbers whose separators stand elsewhere in every reading the other text has.
    pub moved: usize,
    /// Numbers with the other sign in every reading the other text has, separators aside.
    pub sign: usize,
    /// Numbers with another currency or percent sign, or another comparison (`<5`, `>5`),
    /// in every reading the other text has (each side's written), separators and sign aside.
    pub unit: usize,
}

/// The [`Apart`] counts of two texts' numbers.
pub fn values_apart(a: &Written, b: &Written) -> Apart {
    let (x, y) = (one_way(a, b), one_way(b, a));
    Apart {
        moved: x.moved + y.moved,
        sign: x.sign + y.sign,
        unit: x.unit + y.unit,
    }
}

fn one_way(a: &Written, b: &Written) -> Apart {
    let mut apart = Apart::default();
    for (k, w) in &a.marked {
        let mut readings = b.readings(*k).peekable();
        if readings.peek().is_none() {
            continue;
        }
        let v = Value::of(w);
        // How every reading differs: by its sign alone, by its unit, or its separators.
        let (mut all, mut sign_only, mut unit) = (true, true, false);
        for r in readings {
            // Written bare: the same digits without sign, separator or unit.
            let Some(r) = r else {
                all &= v.negative;
                continue;
            };
            let o = Value::of(r);
            all &= &**w != r && v.another(&o);
            let other = v.other_unit(&o) || v.other_relation(&o);
            // A separator dropped beside the sign is OCR's: the sign is what differs.
            sign_only &= !v.moved(&o) && !other;
            unit |= other && v.negative == o.negative;
        }
        if !all {
            continue;
        }
        if sign_only {
            apart.sign += 1;
        } else if unit {
            apart.unit += 1;
        } else {
            apart.moved += 1;
        }
    }
    apart
}

/// A number read as a value: its sign (a leading or a debit's trailing minus, or brackets
/// around an amount, `($5)`, `(174.65)`), its units, its comparison and the rest, digits and
/// separators.
struct Value {
    negative: bool,
    units: String,
    relation: String,
    core: String,
}

impl Value {
    fn of(w: &str) -> Value {
        let taken = |c: char| is_unit(c) || is_relation(c) || c == '(' || c == ')';
        let bracketed = w.starts_with('(') && w.ends_with(')');
        let units: String = w.chars().filter(|&c| is_unit(c)).collect();
        // `≤` read as `<` loses a stroke: one comparison.
        let relation: String = w
            .chars()
            .filter(|&c| is_relation(c))
            .map(|c| match c {
                '≤' | '≦' | '＜' => '<',
                '≥' | '≧' | '＞' => '>',
                '≈' => '~',
                c => c,
            })
            .collect();
        // Most numbers have a sign and separators at most: nothing to take apart.
        let rest: std::borrow::Cow<str> = match w.chars().any(taken) {
            true => w.chars().filter(|&c| !taken(c)).collect::<String>().into(),
            false => w.into(),
        };
        let (lead, rest) = split_sign(&rest);
        let (trail, core) = match rest.strip_suffix('-') {
            Some(core) => (true, core),
            None => (false, rest),
        };
        let currency = units.chars().any(|c| !is_percent(c));
        let negative = lead || trail || bracketed && (currency || ends_in_cents(core.as_bytes()));
        Value {
            negative,
            units,
            relation,
            core: core.to_string(),
        }
    }

    /// Where its separators stand.
    fn places(&self) -> Vec<usize> {
        separator_places(&self.core)
    }

    /// Whether both write a comparison, and another one (`<5`, `>5`).
    fn other_relation(&self, o: &Value) -> bool {
        !self.relation.is_empty() && !o.relation.is_empty() && self.relation != o.relation
    }

    /// Whether both write a unit, and another one, on an amount (cents after its last
    /// separator): OCR reads a section sign `§ 6` as `$6` in one scan and `£6` in another,
    /// never a currency on an amount with its cents as another currency.
    fn other_unit(&self, o: &Value) -> bool {
        !self.units.is_empty()
            && !o.units.is_empty()
            && self.units != o.units
            && ends_in_cents(self.core.as_bytes())
    }

    /// Whether the two are the same digits written as two values ([`another_value`]).
    fn another(&self, o: &Value) -> bool {
        if !skeleton(&self.core).eq(skeleton(&o.core)) {
            return false;
        }
        if self.negative != o.negative || self.other_unit(o) || self.other_relation(o) {
            return true;
        }
        self.moved(o)
    }

    /// Whether their separators stand in places neither explains by the other (one's places
    /// are not all the other's: OCR drops a separator, it does not move one).
    fn moved(&self, o: &Value) -> bool {
        let (pa, pb) = (self.places(), o.places());
        !(pa.iter().all(|p| pb.contains(p)) || pb.iter().all(|p| pa.contains(p)))
    }
}

/// The key of a number: the hash of its digits view (sign, separators, units and brackets
/// removed).
fn key(word: &str) -> u64 {
    let plain: String = word.chars().filter(|&c| !is_mark(c)).collect();
    xxh3_64(plain.as_bytes())
}

/// A separator or a sign, as normalization writes them.
fn is_separator(c: u8) -> bool {
    matches!(c, b'.' | b',' | b'/' | b':' | b'-')
}

/// Whether two numbers are the same digits written as two values: one has a minus sign and
/// the other not (`-174.65`, `174.65`, `(174.65)`, a debit's `174.65-`), or they write an
/// amount in two units (`$174.65`, `€174.65`, `174.65%`), or their separators stand in places neither
/// explains by the other (`174.65`, `1746.5`, `17.465`; `1/12/2024`, `11/2/2024`). A
/// separator's place is counted in characters from the number's end, whatever the
/// separator: OCR reads `.` for `,` or `:` and the other way round, and drops one now and
/// then (`174.65`, `174,65` and `17465` are one value read three ways); it drops a unit too
/// (`$174.65` and `174.65` are one). Two comparisons are another value too (`<5`, `>5`;
/// `≤5` read `<5` is one). Tokens with other characters than the same letters and
/// digits in the same order, or without a digit, are not.
pub fn another_value(a: &str, b: &str) -> bool {
    if a == b || !a.bytes().any(|c| c.is_ascii_digit()) || !b.bytes().any(|c| c.is_ascii_digit()) {
        return false;
    }
    Value::of(a).another(&Value::of(b))
}

/// A token's characters other than its separators.
fn skeleton(t: &str) -> impl Iterator<Item = u8> + '_ {
    t.bytes().filter(|c| !is_separator(*c))
}

/// A token's minus sign (a `-` it starts with) and the rest.
fn split_sign(t: &str) -> (bool, &str) {
    match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    }
}

/// Where a token's separators stand: each one's count of characters after it.
fn separator_places(t: &str) -> Vec<usize> {
    let mut after = 0;
    let mut places = Vec::new();
    for c in t.bytes().rev() {
        if is_separator(c) {
            places.push(after);
        } else {
            after += 1;
        }
    }
    places
}

#[cfg(test)]
mod tests;
