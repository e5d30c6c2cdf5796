//! Another period: a statement, a bill or a payslip of the month before or after, whose dates
//! are the other's each a month apart. OCR misreads a digit here and there; it does not move
//! three dates of a scan by one month, each in the same direction.

use crate::written::Written;

/// Dates one text writes and the other not, each a month from one the other writes (one both
/// write included), in one direction, for two texts to be two periods' documents.
pub const PERIOD_DATES: usize = 3;

/// Whether `a`'s dates that `b` lacks are, [`PERIOD_DATES`] of them or more, each a month from
/// one `b` writes (the same day, the month before or after, one direction for all), or `b`'s
/// that `a` lacks are so from `a`'s: the same customer's statement of another month. A date
/// both write counts (`04.10. bis 04.11.` against `04.11. bis 04.12.`). A date is
/// written with its day, month and a four-digit year (`04.06.2023`, `04/06/2023`,
/// `2023-06-04`; `:` read for `.` too); a date with `/` is read both ways (day or month first).
pub fn another_period(a: &Written, b: &Written) -> bool {
    let only = |x: &Written, y: &Written| -> Vec<Vec<(u32, i64)>> {
        x.marked_forms()
            .filter(|w| !y.has_marked(w))
            .map(readings)
            .filter(|r| !r.is_empty())
            .collect()
    };
    let all = |x: &Written| -> Vec<(u32, i64)> { x.marked_forms().flat_map(readings).collect() };
    let (da, db) = (only(a, b), only(b, a));
    if da.len() < PERIOD_DATES || db.len() < PERIOD_DATES {
        return false;
    }
    // How many of `only`'s dates have one of `to`'s a month from them, `step` the same way.
    let shifted = |only: &[Vec<(u32, i64)>], to: &[(u32, i64)], step: i64| {
        only.iter()
            .filter(|r| {
                r.iter()
                    .any(|&(day, month)| to.iter().any(|&(d, m)| d == day && m == month + step))
            })
            .count()
    };
    let (all_a, all_b) = (all(a), all(b));
    [-1, 1].into_iter().any(|step| {
        shifted(&da, &all_b, step) >= PERIOD_DATES || shifted(&db, &all_a, -step) >= PERIOD_DATES
    })
}

/// The (day, months since year 0) a token may be read as: none for a token not a date.
fn readings(w: &str) -> Vec<(u32, i64)> {
    let parts: Vec<&str> = w.split(['.', '/', '-', ':']).collect();
    let [p, q, r] = parts[..] else {
        return Vec::new();
    };
    let num = |s: &str| {
        (!s.is_empty() && s.len() <= 4 && s.bytes().all(|c| c.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
    };
    let (Some(p), Some(q), Some(r)) = (num(p), num(q), num(r)) else {
        return Vec::new();
    };
    let date = |day: u32, month: u32, year: u32| {
        ((1..=31).contains(&day) && (1..=12).contains(&month) && (1900..=2199).contains(&year))
            .then_some((day, i64::from(year) * 12 + i64::from(month) - 1))
    };
    let mut out = Vec::new();
    if r >= 1900 {
        out.extend(date(p, q, r));
        if w.contains('/') {
            out.extend(date(q, p, r));
        }
    } else if p >= 1900 {
        out.extend(date(r, q, p));
    }
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(t: &str) -> Written {
        Written::of(t)
    }

    #[test]
    fn dates_each_a_month_apart_are_another_period() {
        let june = "rechnung vom 04.06.2023 zeitraum 01.06.2022 bis 01.06.2023 fällig 18.06.2023 betrag 373,31";
        let may = "rechnung vom 04.05.2023 zeitraum 01.05.2022 bis 01:05.2023 fällig 18.05.2023 betrag 315,98";
        assert!(another_period(&written(june), &written(may)));
        assert!(another_period(&written(may), &written(june)));
        // Consecutive periods share the day one ends and the next begins.
        let november = "vom 11.12.2018 zeitraum 04.11.2018 bis 04.12.2018 fällig 25.12.2018";
        let october = "vom 11.11.2018 zeitraum 04.10.2018 bis 04.11.2018 fällig 25.11.2018";
        assert!(another_period(&written(november), &written(october)));
        assert!(another_period(&written(october), &written(november)));
        // Over a year's end, ISO and US dates.
        assert!(another_period(
            &written("2024-01-05 2024-01-20 12/15/2023 x"),
            &written("2023-12-05 2023-12-20 11/15/2023 x")
        ));
        // OCR misreading a digit in two dates, or dates moved in both directions, is not.
        let misread =
            "rechnung vom 04.05.2023 zeitraum 01.05.2022 bis 01.06.2023 fällig 18.06.2023";
        assert!(!another_period(&written(june), &written(misread)));
        assert!(!another_period(
            &written("01.06.2023 01.08.2023 01.10.2023"),
            &written("01.05.2023 01.09.2023 01.11.2023")
        ));
        // Other days, or another year, are not a month.
        assert!(!another_period(
            &written("04.06.2023 05.06.2023 06.06.2023"),
            &written("14.05.2023 15.05.2023 16.05.2023")
        ));
        assert!(!another_period(
            &written("04.06.2023 05.06.2023 06.06.2023"),
            &written("04.06.2022 05.06.2022 06.06.2022")
        ));
    }
}
