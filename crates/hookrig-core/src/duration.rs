//! Durations as hookrig prints them in messages (`5s`, `250ms`, `1m30s`).

use std::fmt::Write;
use std::time::Duration;

/// Formats a duration the way config files write them: whole units, largest first.
pub fn display_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis == 0 {
        return "0s".to_owned();
    }
    if !millis.is_multiple_of(1000) {
        return format!("{millis}ms");
    }
    let mut secs = millis / 1000;
    let mut out = String::new();
    for (unit, size) in [("h", 3600), ("m", 60)] {
        if secs >= size {
            let _ = write!(out, "{}{unit}", secs / size);
            secs %= size;
        }
    }
    if secs > 0 || out.is_empty() {
        let _ = write!(out, "{secs}s");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(display_duration(Duration::from_secs(5)), "5s");
        assert_eq!(display_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(display_duration(Duration::from_secs(90)), "1m30s");
        assert_eq!(display_duration(Duration::from_hours(1)), "1h");
        assert_eq!(display_duration(Duration::ZERO), "0s");
    }
}
