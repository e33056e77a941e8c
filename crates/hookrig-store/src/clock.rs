//! The wall clock in the units the tables store: Unix milliseconds for emits, agents and
//! plugins, Unix seconds for the automation tables (as their JSON shows), and the civil
//! time a reader of the ledger sees. Public, so that the rows the CLI builds carry the
//! same clock.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Now as Unix milliseconds (zero for a clock set before 1970, saturating far ahead).
pub fn now_ms() -> i64 {
    millis(since_epoch())
}

/// Now as Unix seconds.
pub(crate) fn unix_now() -> f64 {
    since_epoch().as_secs_f64()
}

/// Time since the epoch; zero for a clock set before 1970, which no row can express.
fn since_epoch() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
}

/// `elapsed` in whole milliseconds, saturating at `i64::MAX`.
fn millis(elapsed: Duration) -> i64 {
    i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
}

/// Unix milliseconds as the civil UTC time `2026-11-23 11:05:24`, as `hookrig runs` and
/// `hookrig why` show the ledger's times; computed without a date crate, as the ledger
/// only needs a readable civil time. A time before 1970 is the number as it is.
pub fn utc_text(ms: i64) -> String {
    let Ok(ms) = u64::try_from(ms) else {
        return ms.to_string();
    };
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date: 400-year eras, then the year
/// counted from March (so that the leap day is its last), then the month and the day.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_are_whole_and_saturate() {
        assert_eq!(millis(Duration::from_micros(1_999)), 1);
        assert_eq!(millis(Duration::MAX), i64::MAX);
    }

    #[test]
    fn timestamps_are_civil_utc() {
        assert_eq!(utc_text(0), "1970-01-01 00:00:00");
        assert_eq!(utc_text(1_795_431_924_000), "2026-11-23 11:05:24");
        assert_eq!(utc_text(951_782_400_000), "2000-02-29 00:00:00");
    }

    #[test]
    fn both_units_read_the_same_clock() {
        let (ms, secs) = (now_ms(), unix_now());
        // Taken one after the other: at most a few milliseconds apart.
        #[expect(
            clippy::cast_precision_loss,
            reason = "a 2026 timestamp in ms fits in f64"
        )]
        let apart = (secs * 1000.0 - ms as f64).abs();
        assert!(apart < 1_000.0, "{ms} ms vs {secs} s");
    }
}
