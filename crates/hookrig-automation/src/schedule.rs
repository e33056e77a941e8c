//! When time-driven automations are due: cron expressions (five fields, evaluated in
//! UTC) and periodic intervals.
//!
//! The engine calls these from its tick (every 5 s): a cron automation is due when an
//! occurrence of its expression fell in `(last_check, now]`, a periodic one when at least
//! `interval` has passed since its last run.

use std::str::FromStr;
use std::time::{Duration, SystemTime};

use chrono::{DateTime, Utc};
use croner::Cron;
use croner::parser::{CronParser, Seconds};

/// The names of the five fields, for error messages.
const FIELDS: &str = "minute hour day-of-month month day-of-week";

/// A validated cron expression.
#[derive(Debug, Clone)]
pub struct CronSchedule {
    expression: String,
    cron: Cron,
}

/// Why a cron expression was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// The expression does not have five fields.
    #[error("cron expression `{expression}` has {count} fields; expected 5 ({FIELDS})")]
    FieldCount {
        /// The expression as written.
        expression: String,
        /// How many whitespace-separated fields it has.
        count: usize,
    },
    /// croner refused the expression.
    #[error("invalid cron expression `{expression}`: {message}")]
    Invalid {
        /// The expression as written.
        expression: String,
        /// croner's explanation, lowercased and without its trailing period.
        message: String,
    },
}

impl CronSchedule {
    /// Parses a five-field expression (`minute hour day-of-month month day-of-week`), or
    /// one of croner's nicknames (`@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`).
    /// A sixth (seconds) field is refused: the engine ticks every 5 s, so second-level
    /// schedules could not be kept anyway.
    pub fn parse(expression: &str) -> Result<Self, ScheduleError> {
        let trimmed = expression.trim();
        let count = trimmed.split_whitespace().count();
        if !trimmed.starts_with('@') && count != 5 {
            return Err(ScheduleError::FieldCount {
                expression: expression.to_owned(),
                count,
            });
        }
        let parser = CronParser::builder().seconds(Seconds::Disallowed).build();
        let cron = parser
            .parse(trimmed)
            .map_err(|err| ScheduleError::Invalid {
                expression: expression.to_owned(),
                message: tidy(&err.to_string()),
            })?;
        // croner accepts some patterns that can never match (`0 0 30 2 *`); finding the
        // next occurrence from now tells them apart.
        if cron
            .find_next_occurrence(&DateTime::<Utc>::from(SystemTime::now()), false)
            .is_err()
        {
            return Err(ScheduleError::Invalid {
                expression: expression.to_owned(),
                message: "it never matches a date".to_owned(),
            });
        }
        Ok(Self {
            expression: expression.to_owned(),
            cron,
        })
    }

    /// The expression as written.
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// The first occurrence strictly after `after`, `None` if there is none (a pattern
    /// that no longer matches within croner's search limit).
    pub fn next_after(&self, after: SystemTime) -> Option<SystemTime> {
        self.cron
            .find_next_occurrence(&DateTime::<Utc>::from(after), false)
            .ok()
            .map(SystemTime::from)
    }
}

impl FromStr for CronSchedule {
    type Err = ScheduleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// Whether an occurrence of `schedule` fell in `(last_check, now]`: the tick at `now`
/// should launch the automation. Several occurrences missed while serve was not running
/// (or between two slow ticks) launch it once, as cron does not catch up either.
pub fn is_due(schedule: &CronSchedule, last_check: SystemTime, now: SystemTime) -> bool {
    schedule
        .next_after(last_check)
        .is_some_and(|next| next <= now)
}

/// Whether a periodic automation is due: at least `interval` since its last run, or it
/// never ran. A clock that went back counts as no time elapsed.
pub fn periodic_due(last_run: Option<SystemTime>, now: SystemTime, interval: Duration) -> bool {
    last_run.is_none_or(|last| now.duration_since(last).unwrap_or(Duration::ZERO) >= interval)
}

/// croner's messages start upper-case and end with a period; ours do neither.
fn tidy(message: &str) -> String {
    let message = message.trim().trim_end_matches('.');
    let mut chars = message.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_lowercase().chain(chars).collect::<String>()
    })
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use test_case::test_case;

    use super::*;

    /// 2026-01-05 (a Monday) at `hh:mm:ss` UTC.
    fn at(hh: u64, mm: u64, ss: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_767_571_200 + hh * 3600 + mm * 60 + ss)
    }

    #[test_case("*/5 * * * *"; "every five minutes")]
    #[test_case("0 9 * * MON-FRI"; "weekday mornings")]
    #[test_case("30 2 1 * *"; "monthly")]
    #[test_case("@daily"; "nickname")]
    #[test_case("  0 0 * * 0  "; "surrounding blanks")]
    fn accepts(expression: &str) {
        let schedule = CronSchedule::parse(expression).expect("valid");
        assert_eq!(schedule.expression(), expression);
    }

    #[test_case("* * * *", "cron expression `* * * *` has 4 fields; expected 5 (minute hour day-of-month month day-of-week)"; "four fields")]
    #[test_case("0 * * * * *", "cron expression `0 * * * * *` has 6 fields; expected 5 (minute hour day-of-month month day-of-week)"; "seconds field")]
    #[test_case("", "cron expression `` has 0 fields; expected 5 (minute hour day-of-month month day-of-week)"; "empty")]
    #[test_case("61 * * * *", "invalid cron expression `61 * * * *`: "; "minute out of range")]
    #[test_case("* * * * FOO", "invalid cron expression `* * * * FOO`: "; "bad weekday")]
    #[test_case("0 0 30 2 *", "invalid cron expression `0 0 30 2 *`: it never matches a date"; "february 30")]
    fn refuses(expression: &str, message_start: &str) {
        let err = CronSchedule::parse(expression).expect_err("invalid");
        let message = err.to_string();
        assert!(message.starts_with(message_start), "{message}");
        assert!(!message.ends_with('.'), "{message}");
        if let ScheduleError::Invalid { message, .. } = &err {
            assert!(!message.is_empty());
            assert!(!message.starts_with(char::is_uppercase), "{message}");
        }
    }

    #[test]
    fn next_occurrence_is_strictly_after() {
        let schedule = CronSchedule::parse("*/15 * * * *").expect("valid");
        assert_eq!(schedule.next_after(at(10, 7, 0)), Some(at(10, 15, 0)));
        assert_eq!(schedule.next_after(at(10, 15, 0)), Some(at(10, 30, 0)));
        let weekdays = CronSchedule::parse("0 9 * * SAT").expect("valid");
        // Monday 2026-01-05 → Saturday 2026-01-10.
        assert_eq!(
            weekdays.next_after(at(10, 0, 0)),
            Some(at(9, 0, 0) + Duration::from_hours(120))
        );
    }

    #[test]
    fn due_when_an_occurrence_falls_in_the_window() {
        let schedule = CronSchedule::parse("0 * * * *").expect("valid");
        // The occurrence at 11:00 is in (10:59:58, 11:00:03].
        assert!(is_due(&schedule, at(10, 59, 58), at(11, 0, 3)));
        // The window ends exactly on it: still due.
        assert!(is_due(&schedule, at(10, 59, 58), at(11, 0, 0)));
        // It starts exactly on it: already handled by the previous tick.
        assert!(!is_due(&schedule, at(11, 0, 0), at(11, 0, 5)));
        assert!(!is_due(&schedule, at(11, 0, 3), at(11, 0, 8)));
        // Many missed occurrences: due (once).
        assert!(is_due(&schedule, at(1, 30, 0), at(9, 30, 0)));
    }

    #[test]
    fn periodic_due_ness() {
        let hour = Duration::from_hours(1);
        assert!(periodic_due(None, at(10, 0, 0), hour), "first run");
        assert!(!periodic_due(Some(at(9, 0, 1)), at(10, 0, 0), hour));
        assert!(
            periodic_due(Some(at(9, 0, 0)), at(10, 0, 0), hour),
            "elapsed == interval"
        );
        assert!(periodic_due(Some(at(8, 0, 0)), at(10, 0, 0), hour));
        assert!(
            !periodic_due(Some(at(11, 0, 0)), at(10, 0, 0), hour),
            "clock went back"
        );
    }

    #[test_case("Invalid pattern: Foo.", "invalid pattern: Foo")]
    #[test_case("", "")]
    fn tidies_messages(raw: &str, tidy_text: &str) {
        assert_eq!(tidy(raw), tidy_text);
    }
}
