//! The wall clock in the units the tables store: Unix milliseconds for emits, agents and
//! plugins, Unix seconds for the automation tables (as their JSON shows). Public, so that
//! the rows the CLI builds carry the same clock.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_are_whole_and_saturate() {
        assert_eq!(millis(Duration::from_micros(1_999)), 1);
        assert_eq!(millis(Duration::MAX), i64::MAX);
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
