//! Columns that hold one name of a fixed set: the status of an automation run, the
//! decision of an emit, the result and dialect of a hook. In Rust they are enums, so that
//! a misspelled value does not compile; on disk they are the lowercase names every
//! version of hookrig has written, so that existing files keep working.
//!
//! A name that is none of the enum's (the file was written by a newer hookrig, or
//! edited by something else) is an error naming the column and the value, never a
//! panic: [`FromSql`] answers [`UnknownName`], [`get`] adds the column's name, and
//! `StoreError::sqlite` turns it into [`StoreError::UnknownValue`](crate::StoreError::UnknownValue).

use hookrig_core::{Dialect, HookResult};
use rusqlite::Row;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// An enum stored as one of its lowercase names.
pub(crate) trait Named: Copy + 'static {
    /// What the column holds, for errors: `run status`, `decision`, ...
    const KIND: &'static str;

    /// Every value.
    const ALL: &'static [Self];

    /// The name on disk.
    fn name(self) -> &'static str;

    /// The value named `name`, if any.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|value| value.name() == name)
    }
}

impl Named for HookResult {
    const KIND: &'static str = "hook result";
    const ALL: &'static [Self] = &HookResult::ALL;

    fn name(self) -> &'static str {
        self.as_str()
    }
}

impl Named for Dialect {
    const KIND: &'static str = "dialect";
    const ALL: &'static [Self] = &Dialect::ALL;

    fn name(self) -> &'static str {
        self.as_str()
    }
}

/// A value of an enum of another crate (`HookResult`, `Dialect`) as SQL, which the
/// orphan rule keeps from implementing [`ToSql`] and [`FromSql`] itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Text<T>(pub(crate) T);

impl<T: Named> ToSql for Text<T> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(to_sql(self.0))
    }
}

impl<T: Named> FromSql for Text<T> {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        from_sql(value).map(Text)
    }
}

/// `value` as the text of its column.
pub(crate) fn to_sql<T: Named>(value: T) -> ToSqlOutput<'static> {
    ToSqlOutput::Borrowed(ValueRef::Text(value.name().as_bytes()))
}

/// The value a column's text names; [`UnknownName`] for text that names none.
pub(crate) fn from_sql<T: Named>(value: ValueRef<'_>) -> FromSqlResult<T> {
    let text = value.as_str()?;
    T::from_name(text).ok_or_else(|| {
        FromSqlError::Other(Box::new(UnknownName {
            kind: T::KIND,
            value: text.to_owned(),
            column: None,
        }))
    })
}

/// Reads column `index` of `row` as `T`; a name that is none of `T`'s values is an error
/// naming the column.
pub(crate) fn get<T: FromSql>(row: &Row<'_>, index: usize) -> rusqlite::Result<T> {
    row.get(index).map_err(|error| match error {
        rusqlite::Error::FromSqlConversionFailure(at, kind, cause) => {
            let cause = match cause.downcast::<UnknownName>() {
                Ok(mut unknown) => {
                    unknown.column = row.as_ref().column_name(at).ok().map(str::to_owned);
                    unknown
                }
                Err(other) => other,
            };
            rusqlite::Error::FromSqlConversionFailure(at, kind, cause)
        }
        other => other,
    })
}

/// Text in a named column that names none of its values.
#[derive(Debug, thiserror::Error)]
#[error("unknown {kind} `{value}`")]
pub(crate) struct UnknownName {
    /// What the column holds.
    pub(crate) kind: &'static str,
    /// The text found.
    pub(crate) value: String,
    /// The column, once [`get`] knows it.
    pub(crate) column: Option<String>,
}

impl UnknownName {
    /// The [`UnknownName`] behind `error`, if that is what it is.
    pub(crate) fn of(error: &rusqlite::Error) -> Option<&UnknownName> {
        match error {
            rusqlite::Error::FromSqlConversionFailure(_, _, cause) => cause.downcast_ref(),
            _ => None,
        }
    }
}

/// Whether `error` says that a named column holds an unknown name, for tests.
#[cfg(test)]
pub(crate) fn is_unknown(error: &crate::StoreError, column: &str, value: &str) -> bool {
    matches!(
        error,
        crate::StoreError::UnknownValue { column: c, value: v, .. } if c == column && v == value
    )
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    fn read<T: FromSql>(text: &str) -> rusqlite::Result<T> {
        let conn = Connection::open_in_memory().expect("in-memory database");
        conn.query_row("SELECT ?1 AS result", [text], |row| get(row, 0))
    }

    #[test]
    fn every_hook_result_and_dialect_reads_back_from_its_name() {
        for result in HookResult::ALL {
            assert_eq!(
                read::<Text<HookResult>>(result.as_str()).expect("known").0,
                result
            );
        }
        for dialect in Dialect::ALL {
            assert_eq!(
                read::<Text<Dialect>>(dialect.as_str()).expect("known").0,
                dialect
            );
        }
    }

    #[test]
    fn an_unknown_name_is_an_error_naming_the_column_and_the_value() {
        let error = read::<Text<HookResult>>("maybe").expect_err("unknown");
        let unknown = UnknownName::of(&error).expect("an unknown name");
        assert_eq!(unknown.kind, "hook result");
        assert_eq!(unknown.value, "maybe");
        assert_eq!(unknown.column.as_deref(), Some("result"));
        let stored = crate::StoreError::sqlite(std::path::Path::new("/l.db"), "read")(error);
        assert!(is_unknown(&stored, "result", "maybe"), "{stored:?}");
        assert_eq!(
            stored.to_string(),
            "the ledger /l.db holds an unknown hook result `maybe` in column `result`"
        );
    }
}
